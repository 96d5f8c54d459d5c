package magic

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/interp/cell"
)

// Timing magics, in IPython's formats:
//
//	%time STMT     runs STMT once: CPU (user, sys) and wall time
//	%%time         the same for the rest of the cell
//	%timeit STMT   runs STMT in loops: mean ± std. dev. of the runs
//	%%timeit       the same for the rest of the cell
//
// Every tensor the timed code produces (its value, and what it assigns)
// is evaluated inside the timing: MLX is lazy, and otherwise only
// building the graph would be timed (timed.go).

// IsTiming reports whether m times code: it then takes the code of its
// line (or the rest of the cell, for %%time and %%timeit), and runs
// through Time rather than Run.
func IsTiming(m cell.Magic) bool {
	switch m.Name {
	case "time", "timeit", "%time", "%timeit":
		return true
	}
	return false
}

// Time runs a timing magic. code is the whole cell and rest its Go code
// with the magic lines blanked. cellDone reports that the magic used the
// rest of the cell (%%time, %%timeit), whose result is then res (nil when
// it has none).
func Time(ctx context.Context, h Host, m cell.Magic, code, rest string) (res Ran, cellDone bool, err error) {
	line := strings.Split(code, "\n")[m.Line-1]
	_, stmt, _ := strings.Cut(line, "%"+m.Name)
	stmt = strings.TrimSpace(stmt)
	name := strings.TrimPrefix(m.Name, "%")
	var opts timeitOpts
	if name == "timeit" {
		if stmt, err = opts.parse(stmt); err != nil {
			return nil, strings.HasPrefix(m.Name, "%"), err
		}
	}
	tc := Snippet{Src: stmt, Line: m.Line, Col: strings.LastIndex(line, stmt) + 1, Cell: code, HeaderLines: 1}
	if strings.HasPrefix(m.Name, "%") {
		if stmt != "" {
			return nil, true, usage("%%%s takes the rest of the cell, not %q on its line; write the code below it", m.Name, stmt)
		}
		// The rest keeps the cell's lines (its magic lines blanked).
		stmt, cellDone = strings.TrimSpace(rest), true
		tc = Snippet{Src: strings.TrimRight(rest, " \t\n"), Line: 1, Col: 1, Cell: code, HeaderLines: 1}
	}
	if stmt == "" {
		return nil, cellDone, usage("%%%s: nothing to time; e.g. %%%s emily.Matmul(a, b)", m.Name, name)
	}
	if name == "time" {
		res, err = timeOnce(ctx, h, stmt)
		return res, cellDone, err
	}
	return nil, cellDone, timeit(ctx, h, tc, opts)
}

// timeOnce runs code as a cell and prints how long it took, with the
// tensors it produced (its value, the variables it assigns) evaluated.
func timeOnce(ctx context.Context, h Host, code string) (Ran, error) {
	_, _, assigned := timedParts(code)
	u0, s0 := cpuTimes()
	start := time.Now()
	res, err := h.Run(ctx, code)
	if err == nil {
		produced := []any{res.Value()}
		if len(assigned) > 0 {
			if v, e := h.Eval("[]any{" + strings.Join(assigned, ", ") + "}"); e == nil {
				if vs, ok := valueInterface(v).([]any); ok {
					produced = append(produced, vs...)
				}
			}
		}
		err = emily.Try(func() { evalProduced(produced) })
	}
	wall := time.Since(start)
	u1, s1 := cpuTimes()
	user, sys := u1-u0, s1-s0
	fmt.Fprintf(h.Stdout(), "CPU times: user %s, sys: %s, total: %s\nWall time: %s\n",
		FormatTime(user.Seconds()), FormatTime(sys.Seconds()), FormatTime((user + sys).Seconds()), FormatTime(wall.Seconds()))
	return res, err
}

// cpuTimes returns the process's user and system CPU time so far.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// timeitOpts are %timeit's options: -n loops per run, -r runs.
type timeitOpts struct {
	loops, runs int
}

// parse takes the leading -n N and -r R options off stmt.
func (o *timeitOpts) parse(stmt string) (string, error) {
	o.runs = 7
	for {
		f := strings.Fields(stmt)
		if len(f) < 2 || (f[0] != "-n" && f[0] != "-r") {
			return stmt, nil
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 {
			return "", usage("%%timeit %s %s: want a positive count, e.g. %%timeit -n 100 -r 7 f(x)", f[0], f[1])
		}
		if f[0] == "-n" {
			o.loops = n
		} else {
			o.runs = n
		}
		stmt = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stmt), f[0]))
		stmt = strings.TrimSpace(strings.TrimPrefix(stmt, f[1]))
	}
}

// timeit compiles stmt once into a function, picks a loop count as
// IPython does (1, 2, 5, 10, 20, 50, … until a run takes 0.2 s), and
// prints the mean ± std. dev. of the per-loop time over the runs.
func timeit(ctx context.Context, h Host, tc Snippet, o timeitOpts) error {
	fn, err := timedFunc(ctx, h, tc)
	if err != nil {
		return err
	}
	defer h.Interruptible(ctx)()
	run := func(n int) (time.Duration, error) {
		if ctx.Err() != nil {
			return 0, interrupted(ctx.Err())
		}
		var d time.Duration
		err := emily.Try(func() {
			start := time.Now()
			for i := 0; i < n; i++ {
				fn()
			}
			d = time.Since(start)
		})
		if err != nil {
			if ctx.Err() != nil {
				return 0, interrupted(ctx.Err())
			}
			return 0, &Error{Kind: Panic, Msg: "%timeit: " + err.Error(), Err: err}
		}
		return d, nil
	}
	loops := o.loops
	if loops == 0 {
	search:
		for scale := 1; ; scale *= 10 {
			for _, base := range []int{1, 2, 5} {
				loops = base * scale
				d, err := run(loops)
				if err != nil {
					return err
				}
				if d >= 200*time.Millisecond || loops >= 1e9 {
					break search
				}
			}
		}
	}
	per := make([]float64, o.runs)
	for i := range per {
		d, err := run(loops)
		if err != nil {
			return err
		}
		per[i] = d.Seconds() / float64(loops)
	}
	mean, std := meanStd(per)
	fmt.Fprintf(h.Stdout(), "%s ± %s per loop (mean ± std. dev. of %d run%s, %d loop%s each)\n",
		FormatTime(mean), FormatTime(std), o.runs, plural(o.runs), loops, plural(loops))
	return nil
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	// IPython reports the population standard deviation (numpy's std).
	return mean, math.Sqrt(std / float64(len(xs)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// FormatTime renders seconds with 3 significant digits in s, ms, µs or
// ns, as IPython's _format_time does.
func FormatTime(sec float64) string {
	units := []string{"s", "ms", "µs", "ns"}
	order := 3
	if sec > 0 {
		k := int(math.Floor(math.Log10(sec)))
		// Python's // floors where Go's / truncates toward zero.
		q := k / 3
		if k%3 != 0 && k < 0 {
			q--
		}
		order = max(min(-q, 3), 0)
	}
	return strconv.FormatFloat(sec*math.Pow(1000, float64(order)), 'g', 3, 64) + " " + units[order]
}
