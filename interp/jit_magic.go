package interp

import (
	"fmt"
	"go/token"
	"reflect"
	"strings"

	"github.com/emily-go/emily"
)

// jitEntry is a function of the session replaced by its jitted form.
type jitEntry struct {
	name string
	orig reflect.Value     // the user's function, which re-jitting starts from
	opts map[string]string // the options as typed, for listings
	j    *emily.Jitted
	// seq is the session's declaration count when name was first jitted:
	// the functions declared before then were declared again to call the
	// jitted one (rebindCallers).
	seq int
}

var tensorType = reflect.TypeOf((*emily.Tensor)(nil))

// Jitted returns the compiled form of a function that %jit replaced, for
// its Stats and Programs.
func (s *Session) Jitted(name string) (*emily.Jitted, bool) {
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	if e := s.jits[name]; e != nil {
		return e.j, true
	}
	return nil, false
}

// jitMagic implements `%jit [key=value…] name…`: each named function of
// the session is compiled with emily.CompileNamed, and the name is
// redeclared as a function of the same type that calls the compiled one
// through a variable. The session keeps the original: jitting a jitted
// name again starts from it, with the new options, and assigns the
// variable, so every function that calls the jitted name gets the new
// compiled form. Without arguments it lists the jitted names; `%jit
// --stats` prints the calls, compiles and cache counters of each.
func (s *Session) jitMagic(args []string) error {
	kv, _, names := keyValues(args)
	if len(names) == 1 && len(kv) == 0 && (names[0] == "--stats" || names[0] == "-stats") {
		s.stats.print(s)
		return nil
	}
	if len(names) == 0 {
		if len(kv) > 0 {
			return magicError("%%jit: name the functions to jit, e.g. %%jit native=false f (or start a cell with %%%%jit native=false to apply options to its calls)")
		}
		s.listJits()
		return nil
	}
	opts, err := s.parseJitOptions("%jit", kv)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := s.jitOne(name, kv, opts); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) jitOne(name string, kv map[string]string, opts []emily.Option) error {
	if !token.IsIdentifier(name) {
		return magicError("%%jit: %q is not a function name", name)
	}
	s.jitMu.Lock()
	prev := s.jits[name]
	s.jitMu.Unlock()
	var orig reflect.Value
	if prev != nil {
		orig = prev.orig
	} else {
		v, err := s.evalInternal(name)
		if err != nil {
			return magicError("%%jit %s: %s is not defined in this session", name, name)
		}
		orig = v
	}
	if orig.Kind() != reflect.Func {
		return magicError("%%jit %s: %s is %s, not a function", name, name, typeName(orig))
	}
	var j *emily.Jitted
	if err := emily.Try(func() {
		var err error
		j, err = emily.CompileNamed(name, orig.Interface(), opts...)
		if err != nil {
			panic(err)
		}
	}); err != nil {
		return magicError("%%jit %s: %v", name, err)
	}
	s.rt.setJit(name, j.Func())
	e := &jitEntry{name: name, orig: orig, opts: map[string]string{}, j: j}
	if prev != nil {
		// Assign the wrapper's variable: the wrapper, and every function
		// compiled since that calls it, now reach the new compiled form.
		e.seq = prev.seq
		if _, err := s.evalInternal(rejitSource(name, orig.Type())); err != nil {
			return magicError("%%jit %s: internal error re-jitting the function: %v", name, err)
		}
	} else {
		if _, err := s.evalInternal(wrapperSource(name, orig.Type())); err != nil {
			return magicError("%%jit %s: internal error declaring the jitted function: %v", name, err)
		}
		s.jitMu.Lock()
		e.seq = s.declSeq
		s.jitMu.Unlock()
	}
	if prev == nil {
		// Callers compiled before call the function the name denoted
		// then: declare them again, so they call the jitted one.
		s.rebindCallers([]string{name}, e.seq+1)
	}
	s.stats.watch(j.Compiled(), name)
	for k, v := range kv {
		e.opts[k] = v
	}
	s.jitMu.Lock()
	s.jits[name] = e
	s.jitMu.Unlock()
	return nil
}

// wrapperSource declares name anew as a function of type t (all
// *emily.Tensor, checked) that calls the jitted function. The type is
// written with the runtime package's Tensor, which the user cannot shadow.
func wrapperSource(name string, t reflect.Type) string {
	const tensor = "*" + rtName + ".Tensor"
	params := make([]string, t.NumIn())
	types := make([]string, t.NumIn())
	args := make([]string, t.NumIn())
	for i := range params {
		args[i] = fmt.Sprintf("a%d", i)
		params[i] = args[i] + " " + tensor
		types[i] = tensor
	}
	res := strings.TrimSuffix(strings.Repeat(tensor+", ", t.NumOut()), ", ")
	if t.NumOut() > 1 {
		res = "(" + res + ")"
	}
	fnType := "func(" + strings.Join(types, ", ") + ") " + res
	jit := "__emily_jit_" + name
	return fmt.Sprintf("var %s = %s.JitFunc(%q).(%s)\nfunc %s(%s) %s { return %s(%s) }",
		jit, rtName, name, fnType, name, strings.Join(params, ", "), res, jit, strings.Join(args, ", "))
}

// rejitSource assigns the variable of name's wrapper the jitted function
// registered anew.
func rejitSource(name string, t reflect.Type) string {
	return fmt.Sprintf("__emily_jit_%s = %s.JitFunc(%q).(%s)", name, rtName, name, wrapperFuncType(t))
}

// wrapperFuncType writes t (all *emily.Tensor, checked) with the runtime
// package's Tensor, which the user cannot shadow.
func wrapperFuncType(t reflect.Type) string {
	const tensor = "*" + rtName + ".Tensor"
	types := make([]string, t.NumIn())
	for i := range types {
		types[i] = tensor
	}
	res := strings.TrimSuffix(strings.Repeat(tensor+", ", t.NumOut()), ", ")
	if t.NumOut() > 1 {
		res = "(" + res + ")"
	}
	return "func(" + strings.Join(types, ", ") + ") " + res
}

// listJits prints the jitted names and their options.
func (s *Session) listJits() {
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	if len(s.jits) == 0 {
		fmt.Fprintln(s.stdout, "no jitted functions; %jit name jits one")
		return
	}
	for _, name := range sortedKeys(s.jits) {
		e := s.jits[name]
		var opts []string
		for _, k := range sortedKeys(e.opts) {
			opts = append(opts, k+"="+e.opts[k])
		}
		if len(opts) == 0 {
			opts = []string{"(default options)"}
		}
		fmt.Fprintf(s.stdout, "%s %s\n", name, strings.Join(opts, " "))
	}
}

// noteDeclared records what a chunk declared: a jitted name declared anew
// by the user is no longer jitted, and completion learns the new names.
func (s *Session) noteDeclared(names []string, imports map[string]string) {
	s.jitMu.Lock()
	for _, n := range names {
		delete(s.jits, n)
	}
	s.jitMu.Unlock()
	s.comp.mu.Lock()
	defer s.comp.mu.Unlock()
	for _, n := range names {
		s.comp.declared[n] = true
	}
	for n, p := range imports {
		s.comp.imports[n] = p
	}
}

// valueInterface returns v's value, or nil for the zero Value.
func valueInterface(v reflect.Value) any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

func typeName(v reflect.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	return v.Type().String()
}
