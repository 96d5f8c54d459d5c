// Command compare reads the -json files of two bench binaries, run in
// turns on one machine (scripts/bench-compare.sh), and prints for every
// workload and lane B's median over A's, flagging the rows that moved by
// more than their spread: B's range over its rounds lies wholly above
// (slower) or below (faster) A's. A bench file holds, per workload id and
// column, one time per round (or one number, from a bench of before
// -rounds); every file given for a side adds its rounds to that side.
//
//	go run ./bench/compare -a 'a.*.json' -b 'b.*.json'
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
)

var (
	aGlob = flag.String("a", "", "glob of commit A's bench -json files")
	bGlob = flag.String("b", "", "glob of commit B's bench -json files")
	aName = flag.String("a-name", "A", "what to call A in the header")
	bName = flag.String("b-name", "B", "what to call B in the header")
)

// side holds every round's time by workload and column.
type side map[string]map[string][]float64

func load(glob string) (side, int, error) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return nil, 0, fmt.Errorf("no files match %q", glob)
	}
	s := side{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		var raw map[string]map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", f, err)
		}
		for id, cols := range raw {
			if s[id] == nil {
				s[id] = map[string][]float64{}
			}
			for col, v := range cols {
				var one float64
				var many []float64
				if json.Unmarshal(v, &one) == nil {
					many = []float64{one}
				} else if err := json.Unmarshal(v, &many); err != nil {
					return nil, 0, fmt.Errorf("%s: %s/%s: %v", f, id, col, err)
				}
				s[id][col] = append(s[id][col], many...)
			}
		}
	}
	return s, len(files), nil
}

func stats(v []float64) (lo, med, hi float64) {
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	return c[0], c[(len(c)-1)/2], c[len(c)-1]
}

// lanes are Emily's columns, in the bench's order; the peers' columns are
// the same program in both binaries and are left out.
var lanes = []string{"eager", "scoped", "evaluator", "native", "fuse"}

func main() {
	flag.Parse()
	a, na, err := load(*aGlob)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare: A:", err)
		os.Exit(2)
	}
	b, nb, err := load(*bGlob)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare: B:", err)
		os.Exit(2)
	}
	var ids []string
	for id := range a {
		if b[id] != nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	fmt.Printf("%s ÷ %s, medians over the rounds (%s: %d files, %s: %d files); moved: %s's range lies wholly above (slower) or below (faster) %s's\n",
		*bName, *aName, *aName, na, *bName, nb, *bName, *aName)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "workload\tlane\t%s median (lo–hi) µs\t%s median (lo–hi) µs\tratio\t\n", *aName, *bName)
	moved := 0
	for _, id := range ids {
		for _, lane := range lanes {
			av, bv := a[id][lane], b[id][lane]
			if len(av) == 0 || len(bv) == 0 {
				continue
			}
			alo, amed, ahi := stats(av)
			blo, bmed, bhi := stats(bv)
			flag := ""
			switch {
			case len(av) < 2 || len(bv) < 2:
				flag = "(one round: no spread)"
			case blo > ahi:
				flag, moved = "SLOWER", moved+1
			case bhi < alo:
				flag, moved = "faster", moved+1
			}
			fmt.Fprintf(w, "%s\t%s\t%.1f (%.1f–%.1f)\t%.1f (%.1f–%.1f)\t%.3f\t %s\n", id, lane,
				amed*1e6, alo*1e6, ahi*1e6, bmed*1e6, blo*1e6, bhi*1e6, bmed/amed, flag)
		}
	}
	w.Flush()
	fmt.Printf("%d row(s) moved by more than their spread\n", moved)
}
