package interp

import "reflect"

// ifaceMethodExpr compiles the method expression n, I.M of an interface
// type I the program declares, as a function taking the interface value
// first (emily patch 24). Upstream compiled it as a method value with
// the type as its receiver, so `g := Speaker.Speak; g(Cow{})` failed
// with "too many arguments". The function is compiled code for the
// interpreter (callBin gives it the receiver as a valueInterface, as it
// gives any interpreted interface argument); it calls the receiver's
// method as an interface method call does (getMethodByName).
func ifaceMethodExpr(n *node, it, mt *itype, name string) error {
	ft := funcOf(append([]*itype{it}, mt.arg...), mt.ret)
	rt := ft.TypeOf()
	interp := n.interp
	n.rval = reflect.MakeFunc(rt, func(in []reflect.Value) []reflect.Value {
		vi, ok := in[0].Interface().(valueInterface)
		for ok && vi.value.IsValid() {
			inner, deeper := vi.value.Interface().(valueInterface)
			if !deeper {
				break
			}
			vi = inner
		}
		if !ok || vi.node == nil || !vi.value.IsValid() || (vi.node.typ != nil && vi.node.typ.cat == nilT) {
			panic(runtimeError("invalid memory address or nil pointer dereference"))
		}
		m := interfaceMethod(interp.frame, vi, name)
		if rt.IsVariadic() {
			return m.CallSlice(in[1:])
		}
		return m.Call(in[1:])
	})
	n.typ = wrapperValueTOf(rt, ft)
	n.findex = notInFrame
	n.gen = nop
	return nil
}

// interfaceMethod returns the method name of the value an interpreted
// interface holds, bound to it, as getMethodByName finds it: a method of
// compiled code, or an interpreted one (run in frame f, the global one:
// methods are declared at the top level).
func interfaceMethod(f *frame, vi valueInterface, name string) reflect.Value {
	if met := vi.value.MethodByName(name); met.IsValid() {
		return met
	}
	r, m, li := lookupMethodValue(vi, name)
	if r.IsValid() {
		return r
	}
	if m == nil {
		panic(runtimeError("method not found: " + name))
	}
	nod := copyMethod(m) // emily patch 73
	nod.val = nod
	nod.recv = &receiver{nil, vi.value, li}
	return genFuncValue(nod)(f)
}
