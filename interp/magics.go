package interp

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
)

// helpText is the magic reference %help prints; it is also the docs.
//
//go:embed help.md
var helpText string

// knownMagics lists the magics for error messages.
const knownMagics = "%config, %help, %ir, %jit"

// runMagic runs one %magic line.
func (s *Session) runMagic(m magicLine) error {
	switch m.name {
	case "jit":
		return s.jitMagic(m.args)
	case "config":
		return s.configMagic(m.args)
	case "ir":
		return s.irMagic(m.args)
	case "help":
		fmt.Fprint(s.stdout, helpText)
		return nil
	case "":
		return magicError("line %d: a magic needs a name; known magics: %s", m.line, knownMagics)
	}
	return magicError("unknown magic %%%s; known magics: %s (%%help explains them)", m.name, knownMagics)
}

// keyValues splits key=value arguments from the others.
func keyValues(args []string) (kv map[string]string, order []string, rest []string) {
	kv = map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			rest = append(rest, a)
			continue
		}
		if _, dup := kv[k]; !dup {
			order = append(order, k)
		}
		kv[k] = v
	}
	return kv, order, rest
}

// configKeys are the session settings %config knows.
var configKeys = []string{"device", "native"}

// configMagic shows or changes session settings:
//
//	%config                  prints them
//	%config native=false     jitted functions without native=… use the evaluator lane
//	%config device=cpu       new tensors and eager ops go to the CPU
func (s *Session) configMagic(args []string) error {
	kv, order, rest := keyValues(args)
	if len(rest) > 0 {
		return magicError("%%config: %q is not key=value; e.g. %%config native=false (known: %s)", rest[0], strings.Join(configKeys, ", "))
	}
	if len(kv) == 0 {
		fmt.Fprintf(s.stdout, "native=%t\ndevice=%s\n", compiler.DefaultNative(), emily.DefaultDevice())
		return nil
	}
	// Check everything before changing anything.
	var native *bool
	for _, k := range order {
		v := kv[k]
		switch k {
		case "native":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return magicError("%%config native=%s: not a bool (use true or false)", v)
			}
			native = &b
		case "device":
			if v != "cpu" && v != "gpu" {
				return magicError("%%config device=%s: use cpu or gpu", v)
			}
		default:
			return magicError("%%config: unknown setting %q; known: %s", k, strings.Join(configKeys, ", "))
		}
	}
	if d, ok := kv["device"]; ok {
		if err := emily.SetDefaultDevice(d); err != nil {
			return magicError("%%config device=%s: %v", d, err)
		}
	}
	if native != nil {
		compiler.SetDefaultNative(*native)
	}
	return nil
}

// irMagic prints the IR programs of a jitted function: for the argument
// signatures it has been called with, or for the tensors given after its
// name (Go expressions of the session, without spaces).
func (s *Session) irMagic(args []string) error {
	if len(args) == 0 {
		return magicError("%%ir: name a jitted function, e.g. %%ir f (or %%ir f x y to trace it for tensors x, y)")
	}
	name := args[0]
	s.jitMu.Lock()
	e := s.jits[name]
	var sigs []string
	if e != nil {
		sigs = append(sigs, e.sigs...)
	}
	s.jitMu.Unlock()
	if e == nil {
		return magicError("%%ir %s: %s is not jitted; %%jit %s first", name, name, name)
	}
	if len(args) > 1 {
		ts := make([]*emily.Tensor, len(args)-1)
		for i, a := range args[1:] {
			v, err := s.evalInternal(a)
			if err != nil {
				return magicError("%%ir %s: argument %s: %v", name, a, err)
			}
			t, ok := valueInterface(v).(*emily.Tensor)
			if !ok {
				return magicError("%%ir %s: argument %s is %s, not *emily.Tensor", name, a, typeName(v))
			}
			ts[i] = t
		}
		return s.printProgram(e, ts)
	}
	if len(sigs) == 0 {
		return magicError("%%ir %s: %s has not been called yet: call it, or give arguments (%%ir %s x)", name, name, name)
	}
	for _, sig := range sigs {
		ts, err := placeholders(sig)
		if err != nil {
			return magicError("%%ir %s: %v", name, err)
		}
		if err := s.printProgram(e, ts); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) printProgram(e *jitEntry, args []*emily.Tensor) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = fmt.Sprintf("%s%v", a.DType(), a.Shape())
	}
	var listing string
	err := emily.Try(func() {
		var err error
		listing, err = e.j.Program(args...)
		if err != nil {
			panic(err)
		}
	})
	if err != nil {
		return magicError("%%ir %s(%s): %v", e.name, strings.Join(types, ", "), err)
	}
	fmt.Fprintf(s.stdout, "%s(%s):\n%s\n", e.name, strings.Join(types, ", "), strings.TrimRight(listing, "\n"))
	return nil
}

// recordSignature notes a signature a jitted function was traced for. The
// compiler's signature is "lane|dtype,dim,dim|dtype,…"; the lane is
// dropped, since %ir lists programs for the lane in use.
func (s *Session) recordSignature(fn, sig string) {
	_, sig, _ = strings.Cut(sig, "|")
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	e := s.jits[fn]
	if e == nil {
		return
	}
	for _, have := range e.sigs {
		if have == sig {
			return
		}
	}
	e.sigs = append(e.sigs, sig)
}

var dtypes = []emily.DType{
	emily.Bool, emily.Uint8, emily.Uint16, emily.Uint32, emily.Uint64,
	emily.Int8, emily.Int16, emily.Int32, emily.Int64,
	emily.Float16, emily.Float32, emily.Float64, emily.BFloat16, emily.Complex64,
}

// placeholders makes zero tensors of a recorded signature.
func placeholders(sig string) ([]*emily.Tensor, error) {
	if sig == "" {
		return nil, nil
	}
	var ts []*emily.Tensor
	for _, in := range strings.Split(sig, "|") {
		f := strings.Split(in, ",")
		dt, ok := -1, false
		for i, d := range dtypes {
			if d.String() == f[0] {
				dt, ok = i, true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown dtype %q in signature %q", f[0], sig)
		}
		dims := make([]int, len(f)-1)
		for i, d := range f[1:] {
			n, err := strconv.Atoi(d)
			if err != nil {
				return nil, fmt.Errorf("bad dimension %q in signature %q", d, sig)
			}
			dims[i] = n
		}
		var t *emily.Tensor
		if err := emily.Try(func() {
			t = emily.Zeros(dims...)
			if len(dims) == 0 {
				t = emily.Scalar(0)
			}
			t = t.Astype(dtypes[dt])
		}); err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
