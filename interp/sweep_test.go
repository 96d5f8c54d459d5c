package interp

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/display"
	"github.com/emily-go/emily/mlxbind"
)

// chainCell is the bench's 100-op eager chain on x, typed into a cell
// without a scope, evaluated in the same cell.
const chainCell = `y := x
for i := 0; i < 100; i++ {
	switch i % 3 {
	case 0:
		y = emily.Add(y, y)
	case 1:
		y = emily.Mul(y, emily.Scalar(0.5))
	default:
		y = emily.Tanh(y)
	}
}
y.Eval()
_ = 0`

// peakOfCell runs cell in s and returns the MLX memory it needed beyond
// what was active before it.
func peakOfCell(t *testing.T, s *Session, cell string) uint64 {
	t.Helper()
	before, _ := mlxbind.Memory()
	mlxbind.ResetPeakMemory()
	mustRun(t, s, cell)
	after, _ := mlxbind.Memory()
	return after.Peak - before.Active
}

// TestSweepChainDonates runs the 1M-element chain in a cell: released as
// the loop goes, each intermediate donates its buffer to the next op, and
// the cell needs a few buffers (the native lane's 71 MB), not one per op
// (~400 MB, what it needed while they waited for the collector).
func TestSweepChainDonates(t *testing.T) {
	on, _ := newSession(t)
	off, _ := newSession(t)
	off.keepDead = true
	for _, s := range []*Session{on, off} {
		mustRun(t, s, "x := emily.Ones(1<<20)")
	}
	peakOff := peakOfCell(t, off, chainCell)
	peakOn := peakOfCell(t, on, chainCell)
	t.Logf("1M chain in a cell: peak %d MB swept, %d MB without; %d sweeps, %d tensors freed", peakOn>>20, peakOff>>20, on.rt.sweep.swept.Load(), on.rt.sweep.freed.Load())
	if peakOff < 300<<20 {
		t.Fatalf("without sweeps the chain needed %d MB: the test needs its intermediates held (~400 MB)", peakOff>>20)
	}
	if peakOn > 120<<20 {
		t.Errorf("with sweeps the chain needed %d MB, want ≤ 120 MB (intermediates donating)", peakOn>>20)
	}
	// The result is right: ((x+x)·0.5 → tanh) repeated.
	r := mustRun(t, on, "fmt.Println(y.ToFloat32s()[:2])")
	want := mustRun(t, off, "fmt.Println(y.ToFloat32s()[:2])")
	if r.stdout != want.stdout {
		t.Errorf("swept chain gives %q, unswept %q", r.stdout, want.stdout)
	}
}

// TestSweepLoopKeepsMemoryFlat runs a top-level loop of 1,000 iterations
// of a chain on 1M elements: what each iteration drops is freed at the
// top of the next, so MLX's peak stays at a few buffers, where the
// collector alone let it climb to its 256 MB threshold.
func TestSweepLoopKeepsMemoryFlat(t *testing.T) {
	const cell = `total := 0.0
for i := 0; i < 1000; i++ {
	y := emily.Add(x, emily.Scalar(float64(i)))
	y = emily.Tanh(emily.Mul(y, y))
	total += emily.Sum(y).Item()
}
fmt.Println(total)`
	on, _ := newSession(t)
	mustRun(t, on, "x := emily.Full(-1.0, 1<<20)")
	peak := peakOfCell(t, on, cell)
	t.Logf("1,000 iterations on 1M floats: peak %d MB; %d sweeps, %d refused (last: %s), %d freed", peak>>20, on.rt.sweep.swept.Load(), on.rt.sweep.refused.Load(), refusal(on), on.rt.sweep.freed.Load())
	if peak > 48<<20 {
		t.Errorf("the loop needed %d MB of MLX memory at its peak, want a few 4 MB buffers (≤ 48 MB)", peak>>20)
	}
	if n := on.rt.sweep.freed.Load(); n < 3000 {
		t.Errorf("sweeps freed %d tensors, want at least the 3 a iteration drops, 1,000 times", n)
	}
	if testing.Short() {
		return
	}
	// The control runs 60 iterations, not 1,000: without sweeps the
	// thousand peaked at 12 GB.
	off, _ := newSession(t)
	off.keepDead = true
	mustRun(t, off, "x := emily.Full(-1.0, 1<<20)")
	peakOff := peakOfCell(t, off, strings.Replace(cell, "i < 1000", "i < 60", 1))
	t.Logf("without sweeps: peak %d MB", peakOff>>20)
	if peakOff < 2*peak {
		t.Errorf("without sweeps the loop peaked at %d MB, with them %d MB: the test does not show the sweep", peakOff>>20, peak>>20)
	}
}

// sweepGarbage makes ~16 MB of dropped tensors, so that a sweep is due at
// the top of the next iteration of the loop it stands in.
const sweepGarbage = "for j := 0; j < 4; j++ { _ = emily.Add(emily.Ones(1<<20), emily.Scalar(1)) }"

// TestSweepKeepsReachable puts tensors made in a cell, in loops that
// sweep, into every place the session can hold them, and reads them all
// back in later cells (each sum is exact, so a freed or wrong tensor
// shows). Decision 15: a sweep never touches what is reachable.
func TestSweepKeepsReachable(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s,
		"type Box struct{ W *emily.Tensor; any any }\ntype Named struct{ W *emily.Tensor }\nfunc (n Named) T() *emily.Tensor { return n.W }\ntype TS interface{ T() *emily.Tensor }",
		"func mk(v float64) *emily.Tensor { return emily.Full(v, 4) }\nfunc fresh() []*emily.Tensor { return []*emily.Tensor{mk(60), mk(65)} }",
		"func capture(t *emily.Tensor) func() *emily.Tensor { return func() *emily.Tensor { return t } }",
		"old := capture(mk(100))\nvar keep func() *emily.Tensor\nsetter := func(t *emily.Tensor) { keep = func() *emily.Tensor { return t } }",
	)
	// Each tensor is made inside a function, so that no temporary of the
	// cell holds it directly: only the container it is returned in does.
	mustRun(t, s, `func inSlice(v float64) []*emily.Tensor { return []*emily.Tensor{mk(v)} }
func inMap(v float64) map[string]*emily.Tensor { return map[string]*emily.Tensor{"one": mk(v)} }
func inArray(v float64) [2]*emily.Tensor { return [2]*emily.Tensor{nil, mk(v)} }
func inBox(v float64) *Box { return &Box{W: emily.Add(mk(v), emily.Scalar(0))} }
func inNamed(v float64) TS { return Named{W: mk(v)} }
func inAnySlice(v float64) any { return []any{mk(v)} }
func inAny(v float64) any { return mk(v) }
func inPtr(v float64) **emily.Tensor { t := mk(v); return &t }
func inNested(v float64) map[int][]*Box { return map[int][]*Box{5: {{W: mk(v)}}} }
func inStructValue(v float64) Box { return Box{any: mk(v)} }`)
	cell := `var list []*emily.Tensor
var m map[string]*emily.Tensor
var arr [2]*emily.Tensor
var box *Box
var ts TS
var anyS, anyV any
var p **emily.Tensor
var nested map[int][]*Box
var sv Box
for i := 0; i < 10; i++ {
	` + sweepGarbage + `
	v := float64(i)
	switch i {
	case 0:
		list = inSlice(v)
	case 1:
		m = inMap(v)
	case 2:
		arr = inArray(v)
	case 3:
		box = inBox(v)
	case 4:
		ts = inNamed(v)
	case 5:
		anyS = inAnySlice(v)
	case 6:
		anyV = inAny(v)
	case 7:
		p = inPtr(v)
	case 8:
		nested = inNested(v)
	case 9:
		sv = inStructValue(v)
	}
}
for k, v := range map[string]*emily.Tensor{"a": mk(10), "b": mk(20)} {
	` + sweepGarbage + `
	m[k] = v
}
for _, v := range []*emily.Tensor{mk(30), mk(40)} {
	` + sweepGarbage + `
	list = append(list, v)
}
for _, v := range fresh() {
	` + sweepGarbage + `
	list = append(list, v)
}
for _, v := range [2]*emily.Tensor{mk(70), mk(80)} {
	` + sweepGarbage + `
	list = append(list, v)
}
last := mk(50)`
	before := s.rt.sweep.swept.Load()
	mustRun(t, s, cell)
	// Every loop above sweeps at the top of its iterations (10 + 2 + 2 + 2
	// + 2) and the chunk's end once more, unless something was opaque.
	if swept := s.rt.sweep.swept.Load() - before; swept < 18 {
		t.Errorf("the cell swept %d times (%d refused, last because of %s), want ≥ 18: the test exercised less than it says", swept, s.rt.sweep.refused.Load(), refusal(s))
	}
	r := mustRun(t, s, `sum := func(t *emily.Tensor) float64 { return emily.Sum(t).Item() }
fmt.Println(sum(list[0]), sum(m["one"]), sum(arr[1]), sum(box.W), sum(ts.T()), sum(anyS.([]any)[0].(*emily.Tensor)), sum(anyV.(*emily.Tensor)), sum(*p), sum(nested[5][0].W), sum(sv.any.(*emily.Tensor)))
fmt.Println(sum(m["a"]), sum(m["b"]), sum(list[1]), sum(list[2]), sum(list[3]), sum(list[4]), sum(list[5]), sum(list[6]), sum(last))
fmt.Println(sum(old()))`)
	want := "0 4 8 12 16 20 24 28 32 36\n40 80 120 160 240 260 280 320 200\n400\n"
	if r.stdout != want {
		t.Errorf("got\n%s\nwant\n%s", r.stdout, want)
	}
}

// TestSweepLeavesWhatItCannotSee covers the places a walk of the
// session's variables cannot look into: a closure made or called in the
// cell, a closure of compiled code, a channel's buffer, the stack of a
// range-over-function iterator. Each holds a tensor made in a sweeping
// loop; each must still work afterwards.
func TestSweepLeavesWhatItCannotSee(t *testing.T) {
	cases := []struct{ name, setup, cell, check, want string }{
		{
			name:  "closure made in the cell",
			cell:  "var get func() *emily.Tensor\nfor i := 0; i < 3; i++ {\n\t" + sweepGarbage + "\n\tif i == 0 {\n\t\tt := emily.Full(7.0, 4)\n\t\tget = func() *emily.Tensor { return t }\n\t}\n}",
			check: "emily.Sum(get()).Item()",
			want:  "28",
		},
		{
			name:  "closure of an earlier cell, called in this one",
			setup: "var set func(*emily.Tensor)\nvar get func() *emily.Tensor\nfunc() { var held *emily.Tensor; set = func(t *emily.Tensor) { held = t }; get = func() *emily.Tensor { return held } }()",
			cell:  "for i := 0; i < 3; i++ {\n\t" + sweepGarbage + "\n\tif i == 0 {\n\t\tset(emily.Full(2.0, 4))\n\t}\n}",
			check: "emily.Sum(get()).Item()",
			want:  "8",
		},
		{
			name:  "method value of compiled code (its receiver is walked)",
			setup: "var ev func() *emily.Tensor\nfunc evalOf() func() *emily.Tensor { return emily.Full(3.0, 4).Eval }",
			cell:  "for i := 0; i < 3; i++ {\n\t" + sweepGarbage + "\n\tif i == 0 {\n\t\tev = evalOf()\n\t}\n}",
			check: "emily.Sum(ev()).Item()",
			want:  "12",
		},
		{
			name:  "jitted closure over a local",
			setup: "func scaler(w *emily.Tensor) func(*emily.Tensor) *emily.Tensor {\n\treturn func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, w) }\n}\nvar g func(*emily.Tensor) *emily.Tensor",
			cell:  "for i := 0; i < 3; i++ {\n\t" + sweepGarbage + "\n\tif i == 0 {\n\t\tg = emily.Jit(scaler(emily.Full(2.0, 4))).(func(*emily.Tensor) *emily.Tensor)\n\t}\n}",
			check: "emily.Sum(g(emily.Ones(4))).Item()",
			want:  "8",
		},
		{
			name:  "channel buffer",
			setup: "ch := make(chan *emily.Tensor, 4)",
			cell:  "for i := 0; i < 3; i++ {\n\t" + sweepGarbage + "\n\tif i == 0 {\n\t\tch <- emily.Full(5.0, 4)\n\t}\n}",
			check: "emily.Sum(<-ch).Item()",
			want:  "20",
		},
		{
			name: "handed to a running goroutine",
			// The goroutine reads only its arguments: one that reads the
			// global frame while the next cell grows it races inside yaegi.
			setup: "ch := make(chan *emily.Tensor)\ndone := make(chan bool)\nfinished := make(chan float64)\ngo func(ch chan *emily.Tensor, done chan bool, finished chan float64) {\n\tt := <-ch\n\t<-done\n\tfinished <- emily.Sum(t).Item()\n}(ch, done, finished)",
			// Once sent, the tensor is on the goroutine's stack only: the
			// session no longer holds the channel.
			cell:  "for i := 0; i < 3; i++ {\n\t" + sweepGarbage + "\n\tif i == 0 {\n\t\tch <- emily.Full(4.0, 4)\n\t\tch = nil\n\t}\n}",
			check: "close(done)\n<-finished",
			want:  "16",
		},
		{
			name:  "range over a function",
			setup: "func seq(yield func(int) bool) {\n\thidden := emily.Full(1.0, 4)\n\tfor i := 0; i < 3; i++ {\n\t\tif !yield(i) {\n\t\t\treturn\n\t\t}\n\t}\n\tseen = emily.Sum(hidden).Item()\n}\nvar seen float64",
			cell:  "for i := range seq {\n\t" + sweepGarbage + "\n\t_ = i\n}",
			check: "seen",
			want:  "4",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newSession(t)
			if c.setup != "" {
				mustRun(t, s, c.setup)
			}
			mustRun(t, s, c.cell)
			r := mustRun(t, s, c.check)
			if got := strings.TrimSpace(r.res.Text); got != c.want {
				t.Errorf("%s: got %q, want %q (%d sweeps, %d refused)", c.check, got, c.want, s.rt.sweep.swept.Load(), s.rt.sweep.refused.Load())
			}
			if testing.Verbose() {
				t.Logf("%d sweeps, %d refused, last because of %s", s.rt.sweep.swept.Load(), s.rt.sweep.refused.Load(), refusal(s))
			}
		})
	}
}

// TestSweepShownValue: the value a cell shows is rendered after the cell
// ends (the kernel renders Result.Value), so the end-of-cell sweep keeps
// it, with what it was computed from.
func TestSweepShownValue(t *testing.T) {
	s, _ := newSession(t)
	r := mustRun(t, s, "for i := 0; i < 3; i++ {\n\t"+sweepGarbage+"\n}\nemily.Mul(emily.Full(2.0, 3), emily.Scalar(3))")
	if want := "Tensor float32[3]\n[6. 6. 6.]"; r.res.Text != want {
		t.Fatalf("shown %q, want %q", r.res.Text, want)
	}
	// Rendered again after the cell (the kernel renders Result.Value).
	runtime.GC()
	if got := display.Text(r.res.Value); got != r.res.Text {
		t.Errorf("shown after the cell %q, want %q", got, r.res.Text)
	}
}

// refusal is why the session last refused a sweep.
func refusal(s *Session) string {
	if p := s.rt.sweep.why.Load(); p != nil {
		return *p
	}
	return "none"
}

// TestReachWalkSeesMethodReceivers: a method value of compiled code holds
// its receiver, read from reflect's layout (methodReceiver); the layout
// check must hold on the platforms we build for, or every session with a
// method value in a variable (`emily.Sum(y).Item()` leaves one) would
// never sweep.
func TestReachWalkSeesMethodReceivers(t *testing.T) {
	if !methodLayoutOK {
		t.Fatal("reflect's method value layout is not the one sweep.go reads: update methodValueCtxt")
	}
	held := emily.Ones(2)
	m := reflect.ValueOf(held).MethodByName("Eval")
	slot := reflect.New(m.Type()).Elem()
	slot.Set(m)
	for name, v := range map[string]reflect.Value{"Method": m, "in a variable": slot} {
		w := newReachWalk()
		w.value(v)
		if w.opaque != "" || !w.live[held] {
			t.Errorf("%s: the walk found live=%v, opaque %q; want the receiver", name, w.live[held], w.opaque)
		}
	}
	// A closure of compiled code stays opaque.
	w := newReachWalk()
	w.value(reflect.ValueOf(func() *emily.Tensor { return held }))
	if w.opaque == "" {
		t.Error("a compiled closure was walked as if it held nothing")
	}
}

// TestSweepBacksOffLongWalks: a session whose variables take long to walk
// (a million structs that may hold a tensor) sweeps its loops less often
// than every 4 MB, or each walk would cost more than it saves.
func TestSweepBacksOffLongWalks(t *testing.T) {
	s, _ := newSession(t)
	mustRun(t, s, "type Box struct{ W *emily.Tensor }", "big := make([]Box, 1<<20)\n_ = big")
	before := s.rt.sweep.swept.Load()
	mustRun(t, s, "for i := 0; i < 20; i++ {\n\t_ = emily.Add(emily.Ones(1<<20), emily.Scalar(1))\n}")
	swept := s.rt.sweep.swept.Load() - before
	t.Logf("20 iterations, each making 8 MB: %d sweeps", swept)
	if swept > 6 {
		t.Errorf("%d sweeps of a slow walk in 20 iterations, want it to back off (≤ 6)", swept)
	}
	if swept == 0 {
		t.Error("no sweep at all: the loop's garbage waited for the collector")
	}
}

// TestSweepCellEnd: a cell without a loop frees its temporaries at its
// end: the Exp result of `y := emily.Exp(big).Eval()` … `y = nil` is
// held only by a dead slot of the global frame (its call's), which the
// session drops at the cell's end and then sweeps.
func TestSweepCellEnd(t *testing.T) {
	s, _ := newSession(t)
	before := s.rt.sweep.freed.Load()
	mustRun(t, s, "big := emily.Ones(1<<21)\ny := emily.Exp(big).Eval()\nfmt.Println(emily.Sum(y).Item())\ny = nil")
	if n := s.rt.sweep.freed.Load() - before; n < 2 {
		t.Errorf("the cell's end freed %d tensors (%d refused, last because of %s), want the Exp result and the Sum", n, s.rt.sweep.refused.Load(), refusal(s))
	}
	if r := mustRun(t, s, "emily.Sum(big).Item()"); r.res.Text != "2.097152e+06" {
		t.Errorf("big after the sweep: %q", r.res.Text)
	}
}
