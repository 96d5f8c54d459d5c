package interp

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/emily-go/emily/display"
)

// TestReleaseProperty states decision 15 as a property: any sequence of
// cells prints the same with the release of dead values on and off. The
// cells put tensors in every kind of Go container (slice and array
// elements, map values, struct fields behind pointers, interfaces,
// closures, channel buffers, pointers to elements), mention them in later
// cells (the mentions are what left aliasing temporaries behind), rebind
// names, and print everything reachable. The release session collects
// after every cell, so a tensor released while reachable would show.
func TestReleaseProperty(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := 1; seed <= seeds; seed++ {
		cells := releaseCells(rand.New(rand.NewSource(int64(seed))), 30)
		on, _ := newSession(t)
		off, _ := newSession(t)
		off.keepDead = true
		for i, c := range cells {
			a, b := run(t, on, c), run(t, off, c)
			runtime.GC()
			// What a front end shows of the value, rendered after the
			// cell has ended, as the REPL and the kernel do.
			va, vb := fmt.Sprint(display.MIME(a.res.Value)), fmt.Sprint(display.MIME(b.res.Value))
			if a.stdout != b.stdout || fmt.Sprint(a.err) != fmt.Sprint(b.err) || va != vb {
				t.Fatalf("seed %d, cell %d differs with release on:\n%s\n--- release on:  %q %v %s\n--- release off: %q %v %s\n--- the cells so far:\n%s",
					seed, i, c, a.stdout, a.err, va, b.stdout, b.err, vb, strings.Join(cells[:i+1], "\n// %%\n"))
			}
			if b.err != nil {
				t.Fatalf("seed %d, cell %d fails without release too (a bad generated cell):\n%s\n%v", seed, i, c, b.err)
			}
		}
	}
}

// releaseCells generates n cells over a growing set of variables.
func releaseCells(r *rand.Rand, n int) []string {
	cells := []string{
		"type Box struct{ W *emily.Tensor }",
		"func show(t *emily.Tensor) string {\n\tif t == nil {\n\t\treturn \"nil\"\n\t}\n\treturn fmt.Sprint(t.ToFloat32s())\n}",
		"type Named struct{ W *emily.Tensor }\nfunc (n Named) String() string { return \"Named\" + show(n.W) }\nfunc (n Named) MIMEBundle() map[string]any { return map[string]any{\"text/plain\": n.String()} }\nfunc (n Named) T() *emily.Tensor { return n.W }\ntype TS interface {\n\tfmt.Stringer\n\tT() *emily.Tensor\n}",
	}
	var tensors []string // names bound to *emily.Tensor
	var holders []holder
	next := 0
	fresh := func(prefix string) string { next++; return fmt.Sprintf("%s%d", prefix, next) }
	anyTensor := func() string { return tensors[r.Intn(len(tensors))] }
	newTensor := func() string {
		return fmt.Sprintf("emily.Full(%d, 2)", r.Intn(1000))
	}
	for len(cells) < n {
		if len(tensors) == 0 || r.Intn(6) == 0 {
			name := fresh("t")
			tensors = append(tensors, name)
			cells = append(cells, fmt.Sprintf("%s := %s", name, newTensor()))
			continue
		}
		switch k := r.Intn(17); {
		case k == 14: // an interpreted value behind an interface that compiled code calls back
			h := fresh("n")
			cells = append(cells, fmt.Sprintf("var %s TS\n%s = Named{W: %s}", h, h, anyTensor()))
			holders = append(holders, holder{h, h + ".T()", "stringer"})
		case k == 15: // print a Stringer through fmt, which calls its wrapper
			if n := pick(r, holders, "stringer"); n != "" {
				cells = append(cells, fmt.Sprintf("fmt.Println(%s)", n))
			}
		case k == 16: // a cell's value: shown after the cell, past its release
			cells = append(cells, fmt.Sprintf("Named{W: %s}", anyTensor()))
		case k == 0: // slice
			h := fresh("s")
			cells = append(cells, fmt.Sprintf("%s := []*emily.Tensor{%s, %s}", h, anyTensor(), newTensor()))
			holders = append(holders, holder{h, h + "[0]", "slice"}, holder{h, h + "[1]", "slice"})
		case k == 1: // array
			h := fresh("a")
			cells = append(cells, fmt.Sprintf("%s := [2]*emily.Tensor{%s, %s}", h, newTensor(), anyTensor()))
			holders = append(holders, holder{h, h + "[1]", "array"})
		case k == 2: // map
			h := fresh("m")
			cells = append(cells, fmt.Sprintf("%s := map[string]*emily.Tensor{\"k\": %s}", h, anyTensor()))
			holders = append(holders, holder{h, h + "[\"k\"]", "map"})
		case k == 3: // struct behind a pointer
			h := fresh("p")
			cells = append(cells, fmt.Sprintf("%s := &Box{W: %s}", h, anyTensor()))
			holders = append(holders, holder{h, h + ".W", "field"})
		case k == 4: // struct value in a slice
			h := fresh("bs")
			cells = append(cells, fmt.Sprintf("%s := []Box{{W: %s}}", h, newTensor()))
			holders = append(holders, holder{h, h + "[0].W", "slice of structs"})
		case k == 5: // interface
			h := fresh("i")
			cells = append(cells, fmt.Sprintf("var %s any = %s", h, newTensor()))
			holders = append(holders, holder{h, h + ".(*emily.Tensor)", "interface"})
		case k == 6: // closure over a tensor made in a block
			h := fresh("f")
			cells = append(cells, fmt.Sprintf("var %s func() *emily.Tensor\nfor k := 0; k < 1; k++ {\n\tc := %s\n\t%s = func() *emily.Tensor { return c }\n}", h, newTensor(), h))
			holders = append(holders, holder{h, h + "()", "closure"})
		case k == 7: // channel buffer
			h := fresh("c")
			cells = append(cells, fmt.Sprintf("%s := make(chan *emily.Tensor, 1)\n%s <- %s", h, h, newTensor()))
			holders = append(holders, holder{h, fmt.Sprintf("func() *emily.Tensor { x := <-%s; %s <- x; return x }()", h, h), "channel"})
		case k == 8: // pointer to an element
			if s := pick(r, holders, "slice"); s != "" {
				h := fresh("q")
				cells = append(cells, fmt.Sprintf("%s := &%s[0]", h, s))
				holders = append(holders, holder{h, "(*" + h + ")", "pointer"})
			}
		case k == 9: // rebind a tensor's name (the old value lives on in holders)
			name := anyTensor()
			cells = append(cells, fmt.Sprintf("%s := %s", name, newTensor()))
		case k == 10: // overwrite an element
			if s := pick(r, holders, "slice"); s != "" {
				cells = append(cells, fmt.Sprintf("%s[1] = %s", s, newTensor()))
			}
		case k == 11 && len(holders) > 0: // mention: a method call on the element
			h := holders[r.Intn(len(holders))]
			cells = append(cells, fmt.Sprintf("%s.Sum()", h.read))
		case k == 12 && len(holders) > 0: // mention without use
			h := holders[r.Intn(len(holders))]
			cells = append(cells, fmt.Sprintf("_ = %s", h.read))
		case len(holders) > 0: // print a few holders and tensors
			var parts []string
			for j := 0; j < 3; j++ {
				parts = append(parts, "show("+holders[r.Intn(len(holders))].read+")")
			}
			parts = append(parts, "show("+anyTensor()+")")
			cells = append(cells, "fmt.Println("+strings.Join(parts, ", ")+")")
		}
	}
	// Finally, everything.
	var all []string
	for _, h := range holders {
		all = append(all, "show("+h.read+")")
	}
	for _, name := range tensors {
		all = append(all, "show("+name+")")
	}
	for len(all) > 0 {
		k := min(len(all), 8)
		cells = append(cells, "fmt.Println("+strings.Join(all[:k], ", ")+")")
		all = all[k:]
	}
	return cells
}

// holder is a container variable and the expression reading a tensor from it.
type holder struct{ name, read, kind string }

// pick returns the name of a random holder of the kind, or "".
func pick(r *rand.Rand, hs []holder, kind string) string {
	var names []string
	for _, h := range hs {
		if h.kind == kind {
			names = append(names, h.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return names[r.Intn(len(names))]
}
