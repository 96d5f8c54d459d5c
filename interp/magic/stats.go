package magic

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/emily-go/emily/compiler"
)

// JitStats accumulates the compiler's events for the session's jitted
// functions, by name (`%jit --stats`).
type JitStats struct {
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
func (js *JitStats) watch(cf *compiler.Function, name string) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.src == nil {
		js.src, js.by = map[*compiler.Function]string{}, map[string]*funcStats{}
	}
	js.src[cf] = name
}

// Record counts e, if it is an event of a watched function.
func (js *JitStats) Record(e compiler.Event) {
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
func (js *JitStats) print(w io.Writer) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if len(js.by) == 0 {
		fmt.Fprintln(w, "no jitted calls yet; %jit name jits a function")
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
			mean = FormatTime((st.runTime / time.Duration(calls)).Seconds())
		}
		if len(lanes) == 0 {
			lanes = []string{"-"}
		}
		rows = append(rows, []string{name, fmt.Sprint(calls), strings.Join(lanes, ", "), mean, fmt.Sprint(st.compiles),
			FormatTime(st.traceTime.Seconds()), FormatTime(st.lowerTime.Seconds()), fmt.Sprint(st.ops),
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
		fmt.Fprintln(w, b.String())
	}
}
