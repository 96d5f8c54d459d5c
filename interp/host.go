package interp

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp/cell"
	"github.com/emily-go/emily/interp/magic"
)

// host is the session as the magics see it (magic.Host). It is a type of
// its own so that the host's methods stay off the Session's API.
type host struct{ s *Session }

var _ magic.Host = host{}

func (h host) Stdout() io.Writer    { return h.s.stdout }
func (h host) Stderr() io.Writer    { return h.s.stderr }
func (h host) Page(markdown string) { h.s.page(markdown) }

func (h host) SetNextInput(text string) bool {
	setter, ok := h.s.stdout.Target().(NextInputSetter)
	if ok {
		setter.SetNextInput(text)
	}
	return ok
}

func (h host) Run(ctx context.Context, code string) (magic.Ran, error) {
	res, err := h.s.runCode(ctx, code)
	return ran{res}, err
}

func (h host) RunWrapped(ctx context.Context, code string, at magic.Snippet) (magic.Ran, error) {
	res, err := h.s.runCode(ctx, code)
	if err != nil {
		return ran{res}, h.s.inUserTerms(err, at)
	}
	return ran{res}, nil
}

func (h host) Eval(src string) (reflect.Value, error) { return h.s.evalInternal(src) }

// Vars returns the session's variables (and constants) by name, without
// the session's own (__emily…) and the blank identifier.
func (h host) Vars() map[string]reflect.Value {
	vars := map[string]reflect.Value{}
	for name, v := range h.s.globals() {
		if strings.HasPrefix(name, "__emily") || name == "_" || !v.IsValid() {
			continue
		}
		vars[name] = v
	}
	return vars
}

func (h host) Interruptible(ctx context.Context) (stop func()) {
	stopWatch := context.AfterFunc(ctx, h.s.rt.interrupt)
	h.s.rt.clearInterrupt()
	return func() { stopWatch() }
}

func (h host) Jit(name string) (*magic.Jit, bool) {
	h.s.jitMu.Lock()
	defer h.s.jitMu.Unlock()
	if e := h.s.jits[name]; e != nil {
		return e.Jit, true
	}
	return nil, false
}

func (h host) Jits() []*magic.Jit {
	h.s.jitMu.Lock()
	defer h.s.jitMu.Unlock()
	out := make([]*magic.Jit, 0, len(h.s.jits))
	for _, e := range h.s.jits {
		out = append(out, e.Jit)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (h host) BindJit(e *magic.Jit) error { return h.s.bindJit(e) }

func (h host) JitStats() *magic.JitStats { return &h.s.stats }

// ran is a Result as the magics take it.
type ran struct{ r Result }

func (r ran) Value() any { return r.r.Value }

// fromMagic turns what a magic returns into the cell's result and error:
// a magic's own errors become the session's *Error; errors of the code it
// ran are already the session's.
func fromMagic(res magic.Ran, err error) (Result, error) {
	var r Result
	if rr, ok := res.(ran); ok {
		r = rr.r
	}
	if me, ok := err.(*magic.Error); ok {
		name := MagicError
		switch me.Kind {
		case magic.Panic:
			name = PanicError
		case magic.Interrupted:
			name = Interrupted
		}
		err = &Error{Name: name, Msg: me.Msg, Err: me.Err}
	}
	return r, err
}

// runMagic runs one line magic.
func (s *Session) runMagic(m cell.Magic) error {
	_, err := fromMagic(nil, magic.Run(host{s}, m))
	return err
}

// timingMagic runs a timing magic (magic.Time). code is the whole cell
// and rest its Go code after the magics.
func (s *Session) timingMagic(ctx context.Context, m cell.Magic, code, rest string) (Result, error) {
	res, _, err := magic.Time(ctx, host{s}, m, code, rest)
	return fromMagic(res, err)
}

// cellJitMagic runs %%jit (magic.CellJit).
func (s *Session) cellJitMagic(args []string) (restore func(), err error) {
	restore, err = magic.CellJit(host{s}, args)
	_, err = fromMagic(nil, err)
	return restore, err
}

// The session's side of %jit: how a name of the interpreter comes to call
// the compiled form. magic decides what to compile, with which options.

// jitEntry is a registry entry with the session's own bookkeeping.
type jitEntry struct {
	*magic.Jit
	// seq is the session's declaration count when the name was first
	// jitted: the functions declared before then were declared again to
	// call the jitted one (rebindCallers).
	seq int
}

// Jitted returns the compiled form of a function that %jit replaced, for
// its Stats and Programs.
func (s *Session) Jitted(name string) (*emily.Jitted, bool) {
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	if e := s.jits[name]; e != nil {
		return e.J, true
	}
	return nil, false
}

// bindJit registers e.J with the runtime and makes e.Name call it: the
// first time, the name is declared anew as a function of the same type
// that calls the compiled one through a variable, and the functions
// compiled before that call it are declared again; jitting the name again
// only assigns the variable, so that the wrapper, and every function
// compiled since that calls it, reach the new compiled form.
func (s *Session) bindJit(j *magic.Jit) error {
	name := j.Name
	s.jitMu.Lock()
	prev := s.jits[name]
	s.jitMu.Unlock()
	s.rt.setJit(name, j.J.Func())
	e := &jitEntry{Jit: j}
	rejit, wrapper := rejitSource, wrapperSource
	if !isTensorSignature(j.Orig.Type()) {
		// Parameters or results are trees (jit_trees.go).
		src, err := s.treeWrapperSource(name, prev != nil)
		if err != nil {
			return err
		}
		rejit = func(string, reflect.Type) string { return src }
		wrapper = rejit
	}
	if prev != nil {
		e.seq = prev.seq
		if _, err := s.evalInternal(rejit(name, j.Orig.Type())); err != nil {
			return err
		}
	} else {
		if _, err := s.evalInternal(wrapper(name, j.Orig.Type())); err != nil {
			return err
		}
		s.jitMu.Lock()
		e.seq = s.declSeq
		s.jitMu.Unlock()
		// Callers compiled before call the function the name denoted
		// then: declare them again, so they call the jitted one.
		s.rebindCallers([]string{name}, e.seq+1)
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

// wrapPos matches a position of the wrapper in a message: "L:C", or
// "label:L:C" where the cell has an origin.
var wrapPos = regexp.MustCompile(`(^|[\s(])(?:([^\s:()"'\[\]]+):)?(\d+):(\d+)`)

// inUserTerms rewrites the error of a wrapper that a magic compiled (the
// func() []any {…} of %timeit) so that it shows the user's code only:
// positions in the cell, and the cell's line under them.
func (s *Session) inUserTerms(err error, tc magic.Snippet) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	s.filesMu.Lock()
	origin := s.origin
	s.filesMu.Unlock()
	first := -1
	e.Msg = wrapPos.ReplaceAllStringFunc(e.Msg, func(m string) string {
		sub := wrapPos.FindStringSubmatch(m)
		if sub[2] != "" && sub[2] != origin.Name {
			return m // an earlier cell's position
		}
		l, _ := strconv.Atoi(sub[3])
		c, _ := strconv.Atoi(sub[4])
		if sub[2] != "" {
			l -= origin.line() - 1
		}
		u := l - tc.HeaderLines // line of the user's code, from 1
		if u < 1 || u > strings.Count(tc.Src, "\n")+1 {
			return m
		}
		if u == 1 {
			c += tc.Col - 1
		}
		line := tc.Line + u - 1
		if o, ok := offsetOf(tc.Cell, line, c); ok && first < 0 {
			first = o
		}
		if sub[2] != "" {
			return fmt.Sprintf("%s%s:%d:%d", sub[1], sub[2], line+origin.line()-1, c)
		}
		return fmt.Sprintf("%s%d:%d", sub[1], line, c)
	})
	e.Source = nil
	if first >= 0 {
		e.Source = sourceLines(tc.Cell, first, origin.line())
	}
	return e
}
