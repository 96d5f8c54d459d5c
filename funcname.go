package emily

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Names of the functions this package makes. Grad, ValueAndGrad and Jit
// return functions made by reflect.MakeFunc, whose code pointer is
// reflect's stub for every one of them, so runtime.FuncForPC names them
// all "reflect.makeFuncStub": Jit(Grad(loss)) failing would name that
// instead of loss. Each made function is recorded here under its closure
// (the func value's data pointer, unique while the function lives) with
// a name such as "Grad(main.loss)"; a cleanup drops the entry when the
// function is collected.
var madeFuncs sync.Map // uintptr (closure address) -> *madeName

type madeName struct{ name string }

// closureOf returns the address of the closure a func value points to.
func closureOf(f any) unsafe.Pointer {
	// A func is pointer-shaped: an interface holding one keeps the func
	// value (a pointer to its closure) as its data word.
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&f))[1]
}

// nameMade records name for f, a function made by reflect.MakeFunc, and
// returns f.
func nameMade(f any, name string) any {
	p := closureOf(f)
	if p == nil {
		return f
	}
	entry := &madeName{name}
	key := uintptr(p)
	madeFuncs.Store(key, entry)
	// Only this entry is dropped: a later function at the same address
	// (after f is collected) has its own.
	runtime.AddCleanup((*byte)(p), func(e *madeName) { madeFuncs.CompareAndDelete(key, e) }, entry)
	return f
}

// funcName names a function for errors and listings: "pkg.name" for a
// compiled Go function, what nameMade recorded for one this package made,
// and "func" for other functions made at run time (an interpreted one
// outside the REPL's %jit, which passes its own name).
func funcName(v reflect.Value) string {
	if v.Kind() != reflect.Func || v.IsNil() {
		return anonymous
	}
	if e, ok := madeFuncs.Load(uintptr(closureOf(v.Interface()))); ok {
		return e.(*madeName).name
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return anonymous
	}
	name := f.Name()
	if strings.HasPrefix(name, "reflect.makeFuncStub") {
		return anonymous
	}
	return name[strings.LastIndex(name, "/")+1:]
}

// anonymous is funcName's name for a function it cannot name.
const anonymous = "func"

// inProse is a function's name for a sentence: "the function" for one
// funcName cannot name (an interpreted function in the REPL).
func inProse(name string) string {
	if name == anonymous {
		return "the function"
	}
	return name
}
