package magic

import (
	_ "embed"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/interp/cell"
)

// Help is the magic reference %help prints; it is also the docs.
//
//go:embed help.md
var Help string

// Known lists the magics for error messages.
const Known = "%config, %distributed, %help, %ir, %jit, %%jit, %load, %memory, %replay, %reset, %time, %%time, %timeit, %%timeit, %who, %whos"

// IsKnown reports whether name (after the %: "who", "%jit") is a magic.
func IsKnown(name string) bool {
	for _, k := range strings.Split(Known, ", ") {
		if k == "%"+name {
			return true
		}
	}
	return false
}

// Run runs one line magic that does not time code (see IsTiming).
func Run(h Host, m cell.Magic) error {
	switch m.Name {
	case "jit":
		return jit(h, m.Args)
	case "config":
		return config(h, m.Args)
	case "ir":
		return ir(h, m.Args)
	case "who":
		return who(h)
	case "whos":
		return whos(h)
	case "memory":
		return memory(h)
	case "help":
		h.Page(Help)
		return nil
	case "load":
		return load(h, m.Args)
	case "reset", "replay", "distributed":
		// The supervisor (the REPL's and the kernel's worker process)
		// handles these; a session run in-process cannot start afresh.
		return usage("%%%s needs the session to run in a worker process (the REPL and the kernel do, unless EMILY_SUPERVISE=0)", m.Name)
	case "":
		return usage("line %d: a magic needs a name; known magics: %s", m.Line, Known)
	}
	return usage("unknown magic %%%s; known magics: %s (%%help explains them)", m.Name, Known)
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

// config shows or changes session settings, which are emily's and the
// compiler's process-wide defaults (a session owns its process):
//
//	%config                  prints them
//	%config native=false     jitted functions without native=… use the evaluator lane
//	%config device=cpu       new tensors and eager ops go to the CPU
func config(h Host, args []string) error {
	kv, order, rest := keyValues(args)
	if len(rest) > 0 {
		return usage("%%config: %q is not key=value; e.g. %%config native=false (known: %s)", rest[0], strings.Join(configKeys, ", "))
	}
	if len(kv) == 0 {
		fmt.Fprintf(h.Stdout(), "native=%t\ndevice=%s\n", compiler.DefaultNative(), emily.DefaultDevice())
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
				return usage("%%config native=%s: not a bool (use true or false)", v)
			}
			native = &b
		case "device":
			if v != "cpu" && v != "gpu" {
				return usage("%%config device=%s: use cpu or gpu", v)
			}
		default:
			return usage("%%config: unknown setting %q; known: %s", k, strings.Join(configKeys, ", "))
		}
	}
	if d, ok := kv["device"]; ok {
		if err := emily.SetDefaultDevice(d); err != nil {
			return usage("%%config device=%s: %v", d, err)
		}
	}
	if native != nil {
		compiler.SetDefaultNative(*native)
	}
	return nil
}

// load is %load FILE: the file's code becomes the next input, headed by a
// comment naming it, as IPython's %load does; running that input runs the
// file.
func load(h Host, args []string) error {
	if len(args) != 1 {
		return usage("%%load takes one file name, e.g. %%load model.go")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return usage("%%load %s: %v", args[0], err)
	}
	if !h.SetNextInput("// %load " + args[0] + "\n" + strings.TrimRight(string(b), "\n") + "\n") {
		return usage("%%load %s: this front end has no next input to fill (use it in the REPL or a notebook; run a file with emily-repl FILE)", args[0])
	}
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
