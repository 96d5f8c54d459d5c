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
const knownMagics = "%config, %help, %ir, %jit, %%jit, %load, %memory, %replay, %reset, %time, %%time, %timeit, %%timeit, %who, %whos"

// runMagic runs one %magic line.
func (s *Session) runMagic(m magicLine) error {
	switch m.name {
	case "jit":
		return s.jitMagic(m.args)
	case "config":
		return s.configMagic(m.args)
	case "ir":
		return s.irMagic(m.args)
	case "who":
		return s.whoMagic()
	case "whos":
		return s.whosMagic()
	case "memory":
		return s.memoryMagic()
	case "help":
		s.page(helpText)
		return nil
	case "load":
		return s.loadMagic(m.args)
	case "reset", "replay":
		// The supervisor (the REPL's and the kernel's worker process)
		// handles these; a session run in-process cannot start afresh.
		return magicError("%%%s needs the session to run in a worker process (the REPL and the kernel do, unless EMILY_SUPERVISE=0)", m.name)
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
	programs := e.j.Programs()
	if len(programs) == 0 {
		return magicError("%%ir %s: %s has not been called yet: call it, or give arguments (%%ir %s x)", name, name, name)
	}
	for _, p := range programs {
		fmt.Fprintf(s.stdout, "%s(%s) [%s]:\n%s\n", name, p.Inputs, p.Lane, strings.TrimRight(p.Listing, "\n"))
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

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
