package interp

import (
	"fmt"
	"go/ast"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/interp/cell"
)

// Per-cell overrides, callers of jitted functions and `%jit --stats`.

// cellJitMagic implements `%%jit key=value…` at the top of a cell: the
// options apply to every jitted call made while the cell runs, over each
// function's own options (compiler.SetOverrides); restore brings back the
// function's options (and any overrides of an enclosing run) when the
// cell ends.
func (s *Session) cellJitMagic(args []string) (restore func(), err error) {
	kv, _, rest := keyValues(args)
	if len(rest) > 0 {
		return nil, magicError("%%%%jit takes options only (it applies them to every jitted call of this cell), not %q; to jit a function use %%jit %s", rest[0], rest[0])
	}
	if len(kv) == 0 {
		return nil, magicError("%%%%jit: give options for this cell's jitted calls, e.g. %%%%jit native=false fuse=true (known: %s)", compiler.OptionKeys)
	}
	opts, err := s.parseJitOptions("%%jit", kv)
	if err != nil {
		return nil, err
	}
	restore, err = compiler.SetOverrides(opts...)
	if err != nil {
		return nil, magicError("%%%%jit: %v", err)
	}
	return restore, nil
}

// parseJitOptions parses the options of %jit and %%jit, warns about
// unknown keys (and deletes them from kv), and sends debug output to the
// cell's output.
func (s *Session) parseJitOptions(magic string, kv map[string]string) ([]emily.Option, error) {
	opts, unknown, err := compiler.ParseOptions(kv)
	if err != nil {
		// magic is an argument, not part of the format: "%jit", as typed.
		return nil, magicError("%s: %v", magic, err)
	}
	for _, k := range unknown {
		fmt.Fprintf(s.stderr, "warning: %s: unknown option %s=%s ignored (known: %s)\n", magic, k, kv[k], compiler.OptionKeys)
		delete(kv, k)
	}
	s.warnIgnoredOptions(magic, kv)
	if _, ok := kv["debug"]; ok {
		opts = append(opts, compiler.WithDebugOutput(s.stdout))
	}
	return opts, nil
}

// warnIgnoredOptions warns about options that the other options make
// ineffective (DESIGN.md's option table): fuse and fallback apply to the
// native lane only, so with native=false — typed, or the session's
// default when native is not given — they are ignored. The options were
// typed by a person, who should know.
func (s *Session) warnIgnoredOptions(magic string, kv map[string]string) {
	native, why := compiler.DefaultNative(), "the session's default is native=false (%config native=true changes it)"
	if v, ok := kv["native"]; ok {
		native, _ = strconv.ParseBool(v)
		why = "native=false"
	}
	if native {
		return
	}
	if fuse, _ := strconv.ParseBool(kv["fuse"]); fuse {
		fmt.Fprintf(s.stderr, "warning: %s: fuse=true is ignored: %s, and fuse replays the native program under mlx::core::compile (the evaluator lane walks the graph op by op); drop fuse=true, or use native=true\n", magic, why)
	}
	if v, ok := kv["fallback"]; ok {
		fmt.Fprintf(s.stderr, "warning: %s: fallback=%s is ignored: %s, and fallback says what the native lane does when lowering fails (the evaluator lane never lowers); drop it, or use native=true\n", magic, v, why)
	}
}

// funcRefs is what the session knows of a function declared by a cell:
// the names its body uses, and when it was declared.
type funcRefs struct {
	refs map[string]bool
	seq  int
	src  string // rewritten, for declaring it again (rebind.go)
}

// noteFuncs records the functions a chunk declares and the names they use,
// so that a function declared anew (or jitted) reaches the earlier
// functions that call it (rebind.go).
func (s *Session) noteFuncs(p cell.Parsed) {
	if p.File == nil {
		return
	}
	s.jitMu.Lock()
	defer s.jitMu.Unlock()
	for _, d := range p.File.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil {
			continue
		}
		refs := map[string]bool{}
		cell.CollectRefs(fd.Body, refs)
		s.declSeq++
		s.funcs[fd.Name.Name] = funcRefs{refs: refs, seq: s.declSeq}
	}
}

// staleList joins names for a message: "a", "a and b", "a, b and c".
func staleList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// jitStats accumulates the compiler's events for the session's jitted
// functions, by name (`%jit --stats`).
type jitStats struct {
	mu  sync.Mutex
	src map[*compiler.Function]string
	by  map[string]*funcStats
}

type funcStats struct {
	compiles, hits, misses, evictions, fallbacks int
	traceTime, lowerTime, runTime                time.Duration
	ops                                          int
	runs                                         map[compiler.Lane]int
}

// watch makes the events of cf count for name.
func (js *jitStats) watch(cf *compiler.Function, name string) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.src == nil {
		js.src, js.by = map[*compiler.Function]string{}, map[string]*funcStats{}
	}
	js.src[cf] = name
}

func (js *jitStats) record(e compiler.Event) {
	js.mu.Lock()
	defer js.mu.Unlock()
	name, ok := js.src[e.Source]
	if !ok {
		return
	}
	st := js.by[name]
	if st == nil {
		st = &funcStats{runs: map[compiler.Lane]int{}}
		js.by[name] = st
	}
	switch e.Kind {
	case compiler.EventCompile:
		st.compiles++
		st.traceTime += e.Trace
		st.lowerTime += e.Lower
		st.ops = e.Ops
	case compiler.EventHit:
		st.hits++
	case compiler.EventMiss:
		st.misses++
	case compiler.EventEvict:
		st.evictions++
	case compiler.EventFallback:
		st.fallbacks++
	case compiler.EventRun:
		st.runs[e.Lane]++
		st.runTime += e.Duration
	}
}

// print writes the table of `%jit --stats`.
func (js *jitStats) print(s *Session) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if len(js.by) == 0 {
		fmt.Fprintln(s.stdout, "no jitted calls yet; %jit name jits a function")
		return
	}
	rows := [][]string{{"function", "calls", "lanes", "mean call", "compiles", "trace", "lower", "ops", "hits", "misses", "evicted", "fallbacks"}}
	for _, name := range sortedKeys(js.by) {
		st := js.by[name]
		calls := 0
		var lanes []string
		for _, l := range []compiler.Lane{compiler.LaneNative, compiler.LaneFuse, compiler.LaneEval} {
			if n := st.runs[l]; n > 0 {
				calls += n
				lanes = append(lanes, fmt.Sprintf("%s %d", l, n))
			}
		}
		mean := "-"
		if calls > 0 {
			mean = formatTime((st.runTime / time.Duration(calls)).Seconds())
		}
		if len(lanes) == 0 {
			lanes = []string{"-"}
		}
		rows = append(rows, []string{name, fmt.Sprint(calls), strings.Join(lanes, ", "), mean, fmt.Sprint(st.compiles),
			formatTime(st.traceTime.Seconds()), formatTime(st.lowerTime.Seconds()), fmt.Sprint(st.ops),
			fmt.Sprint(st.hits), fmt.Sprint(st.misses), fmt.Sprint(st.evictions), fmt.Sprint(st.fallbacks)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))))
			}
		}
		fmt.Fprintln(s.stdout, b.String())
	}
}
