package emily_test

import (
	"math"
	"sync"
	"testing"

	"github.com/emily-go/emily"
)

// TestServingOnStreams: 8 goroutines × 100 calls of one jitted function
// with max_concurrency=4 (4 streams sharing one program and its weights),
// and as many on streams the caller picks with Stream.Do: every result
// equals the serial run's, bit for bit. Run under -race (make test-race).
func TestServingOnStreams(t *testing.T) {
	w := emily.FromSlice([]float32{0.5, -1, 2, 0.25, 1.5, -0.75}, 3, 2) // the weights: a constant
	b := emily.FromSlice([]float32{0.1, -0.2})
	model := func(x *emily.Tensor) *emily.Tensor {
		return emily.Tanh(emily.Add(emily.Matmul(x, w), b))
	}
	sj, err := emily.Compile(model, emily.WithMaxConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	serve := sj.Func().(fn1)
	serial := emily.Jit(model).(fn1)
	input := func(g, i int) *emily.Tensor {
		return emily.FromSlice([]float32{float32(g), float32(i) / 100, -1}, 1, 3)
	}
	const goroutines, calls = 8, 100
	want := make([][]float32, goroutines*calls)
	for g := 0; g < goroutines; g++ {
		for i := 0; i < calls; i++ {
			want[g*calls+i] = serial(input(g, i)).ToFloat32s()
		}
	}
	streams := make([]*emily.Stream, 4)
	for i := range streams {
		s, err := emily.NewStream(emily.DefaultDevice()) // where serial ran: the same kernels

		if err != nil {
			t.Fatal(err)
		}
		streams[i] = s
	}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(2)
		go func(g int) { // the pool picks the stream
			defer wg.Done()
			for i := 0; i < calls; i++ {
				if !equal(serve(input(g, i)).ToFloat32s(), want[g*calls+i]) {
					t.Errorf("goroutine %d call %d: pool result differs from the serial one", g, i)
					return
				}
			}
		}(g)
		go func(g int) { // the caller picks the stream
			defer wg.Done()
			s := streams[g%len(streams)]
			for i := 0; i < calls; i++ {
				var got []float32
				s.Do(func() {
					y := serial(input(g, i))
					if y.Device() != s.Device() {
						t.Errorf("result on %s", y.Device())
					}
					got = emily.Add(y, 0).ToFloat32s() // an eager op on s too
				})
				if !equal(got, want[g*calls+i]) {
					t.Errorf("goroutine %d call %d on %v: result differs from the serial one", g, i, s)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	// One program (one copy of the weights) served every call, on at most
	// 4 streams of its own.
	if st := sj.Stats(); st.Traces != 1 || st.NativeCalls != goroutines*calls {
		t.Errorf("pool stats %+v: want 1 trace and %d native calls", st, goroutines*calls)
	}
	if n := sj.Compiled().Streams(); n < 1 || n > 4 {
		t.Errorf("the pool made %d streams, want 1..4", n)
	}
	for _, s := range streams {
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestStreamErrors: an unknown device is an error naming the fix.
func TestStreamErrors(t *testing.T) {
	if _, err := emily.NewStream("tpu"); err == nil {
		t.Fatal("NewStream(tpu) succeeded")
	}
	s, err := emily.NewStream("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if s.Device() != "cpu" || s.String() == "" {
		t.Fatalf("stream %v on %s", s, s.Device())
	}
	var y *emily.Tensor
	s.Do(func() { y = emily.Arange(3) })
	if got := y.ToFloat32s(); len(got) != 3 || got[2] != 2 {
		t.Fatalf("Arange on a stream: %v", got)
	}
}
