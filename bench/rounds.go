package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"
)

// spread is one case's times over the interleaved rounds: one median per
// round. A machine's noise moves whole rounds (MLX Python's decode block
// went 226 → 342 µs between two rounds of one H200 run, issue 25), so the
// range across rounds, not one median, is what a ratio is read against.
type spread []float64

func (s spread) sorted() []float64 {
	c := append([]float64(nil), s...)
	sort.Float64s(c)
	return c
}

func (s spread) min() float64 { return s.sorted()[0] }
func (s spread) max() float64 { c := s.sorted(); return c[len(c)-1] }

// median is the lower median, as timeit's.
func (s spread) median() float64 { c := s.sorted(); return c[(len(c)-1)/2] }

// String prints "median (min–max)", or the one value of a single round.
func (s spread) String() string {
	if len(s) == 0 {
		return "–"
	}
	if len(s) == 1 {
		return human(s[0])
	}
	return fmt.Sprintf("%s (%s–%s)", human(s.median()), human(s.min()), human(s.max()))
}

// verdict compares a case with its peer: a win or a loss only when the
// two ranges do not overlap, else a tie that this run cannot split. One
// round gives no range, and so no verdict.
func verdict(emily, peer spread) string {
	if len(emily) < 2 || len(peer) < 2 {
		return ""
	}
	switch {
	case emily.max() < peer.min():
		return "win"
	case emily.min() > peer.max():
		return "loss"
	}
	return "tie"
}

// ratio prints Emily's median over the peer's, with the extreme ratios of
// the two ranges and the verdict: "1.07 (0.93–1.24) tie".
func ratio(emily, peer spread) string {
	if len(emily) == 0 || len(peer) == 0 || emily.median() <= 0 || peer.median() <= 0 {
		return "–"
	}
	r := emily.median() / peer.median()
	if len(emily) < 2 || len(peer) < 2 {
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f) %s", r, emily.min()/peer.max(), emily.max()/peer.min(), verdict(emily, peer))
}

// results holds every round's median by workload id and column key.
type results map[string]map[string]spread

func (r results) add(id, key string, v float64) {
	if r[id] == nil {
		r[id] = map[string]spread{}
	}
	r[id][key] = append(r[id][key], v)
}

// ratioRow is one ratio column: Emily's column over a peer's.
type ratioRow struct{ head, num, den string }

var ratioRows = []ratioRow{
	{"eager/MLX", "eager", "mlx"},
	{"scope/MLX", "scoped", "mlx"},
	{"evaluator/MLX", "evaluator", "mlx"},
	{"native/MLX", "native", "mlx"},
	{"fuse/mx.compile", "fuse", "mlx_compile"},
	{"eager/NumPy", "eager", "numpy"},
	{"best/NumPy", "best", "numpy"},
}

// emilyLanes are the columns "best" picks from.
var emilyLanes = []string{"eager", "scoped", "evaluator", "native", "fuse"}

// best is, per round, the fastest of Emily's lanes in that round.
func (r results) best(id string) spread {
	var out spread
	for round := 0; ; round++ {
		b := math.Inf(1)
		for _, k := range emilyLanes {
			if s := r[id][k]; round < len(s) && s[round] < b {
				b = s[round]
			}
		}
		if math.IsInf(b, 1) {
			return out
		}
		out = append(out, b)
	}
}

// printTables writes the times table and the ratios table.
func (r results) printTables(out io.Writer, ws []workload, rounds int) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "workload\t")
	for _, c := range columns {
		fmt.Fprintf(w, "%s\t", c.head)
	}
	fmt.Fprintln(w)
	for _, wl := range ws {
		fmt.Fprintf(w, "%s\t", wl.name)
		for _, c := range columns {
			fmt.Fprintf(w, "%s\t", r[wl.id][c.key])
		}
		fmt.Fprintln(w)
	}
	w.Flush()

	if rounds > 1 {
		fmt.Fprintf(out, "\nratios (Emily ÷ peer, medians over %d interleaved rounds; < 1 is faster; (lo–hi) is the ratio of the ranges' ends; win or loss only when the two ranges do not overlap):\n", rounds)
	} else {
		fmt.Fprintln(out, "\nratios (Emily ÷ peer; < 1 is faster; one round: no range, no verdict):")
	}
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "workload\t")
	for _, rr := range ratioRows {
		fmt.Fprintf(w, "%s\t", rr.head)
	}
	fmt.Fprintln(w)
	for _, wl := range ws {
		fmt.Fprintf(w, "%s\t", wl.name)
		for _, rr := range ratioRows {
			num := r[wl.id][rr.num]
			if rr.num == "best" {
				num = r.best(wl.id)
			}
			fmt.Fprintf(w, "%s\t", ratio(num, r[wl.id][rr.den]))
		}
		fmt.Fprintln(w)
	}
	w.Flush()
}
