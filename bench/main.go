// Command bench measures Emily's per-call overheads and lane speedups side
// by side in one run and prints ratios (`make bench`). Absolute times on
// shared machines are noise; the ratios between rows of one run are the
// result. Record runs in BENCHMARKS.md with the commit and machine.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"
	"text/tabwriter"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
)

type fn1 = func(*emily.Tensor) *emily.Tensor

// chain applies n cheap elementwise ops: the shape of code where per-op
// overhead, not arithmetic, dominates.
func chain(n int) fn1 {
	return func(x *emily.Tensor) *emily.Tensor {
		for i := 0; i < n; i++ {
			switch i % 3 {
			case 0:
				x = emily.Add(x, x)
			case 1:
				x = emily.Mul(x, emily.Scalar(0.5))
			default:
				x = emily.Tanh(x)
			}
		}
		return x
	}
}

type row struct {
	name string
	ns   float64
	base string // row this one is compared with
}

func bench(fn func(b *testing.B)) float64 {
	r := testing.Benchmark(fn)
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

func main() {
	device := flag.String("device", "", "gpu or cpu (default: gpu when available)")
	flag.Parse()
	if *device != "" {
		if err := emily.SetDefaultDevice(*device); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	fmt.Printf("emily bench: MLX %s, device %s, %s, GOMAXPROCS=%d\n\n",
		emily.MLXVersion(), emily.DefaultDevice(), runtime.Version(), runtime.GOMAXPROCS(0))

	var rows []row
	add := func(name, base string, fn func(b *testing.B)) {
		rows = append(rows, row{name: name, ns: bench(fn), base: base})
	}

	small := emily.Ones(4)
	small.Eval()

	// Decision 2: direct cgo call vs a hand-off to a pinned OS thread.
	add("cgo: eager add, build only (4 floats)", "", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			emily.Add(small, small).Free()
		}
	})
	add("hand-off to pinned goroutine + eager add", "cgo: eager add, build only (4 floats)", func(b *testing.B) {
		req, resp := make(chan struct{}), make(chan struct{})
		go func() {
			runtime.LockOSThread()
			for range req {
				emily.Add(small, small).Free()
				resp <- struct{}{}
			}
		}()
		for i := 0; i < b.N; i++ {
			req <- struct{}{}
			<-resp
		}
		close(req)
	})
	add("eager add + eval + readback (4 floats)", "", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = emily.Add(small, small).ToFloat32s()
		}
	})
	one := emily.Jit(chain(1)).(fn1)
	one(small)
	add("jit replay, 1 op, native (4 floats)", "eager add + eval + readback (4 floats)", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = one(small).ToFloat32s()
		}
	})

	for _, size := range []int{16, 1 << 20} {
		x := emily.Ones(size)
		x.Eval()
		label := fmt.Sprintf("%d floats", size)
		f := chain(100)
		eagerName := "100-op chain, eager ops (" + label + ")"
		add(eagerName, "", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f(x).Eval()
			}
		})
		lanes := []struct {
			name string
			opts []emily.Option
		}{
			{"evaluator lane", []emily.Option{emily.WithNative(false)}},
			{"native lane", []emily.Option{emily.WithNative(true)}},
			{"fuse lane", []emily.Option{emily.WithFuse(true)}},
		}
		for _, lane := range lanes {
			j := emily.Jit(f, lane.opts...).(fn1)
			j(x) // trace outside the timing
			add(fmt.Sprintf("100-op chain, %s (%s)", lane.name, label), eagerName, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					j(x)
				}
			})
		}
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tper call\tspeedup vs base\t")
	byName := map[string]float64{}
	for _, r := range rows {
		byName[r.name] = r.ns
		ratio := ""
		if r.base != "" {
			ratio = fmt.Sprintf("%.2fx vs %q", byName[r.base]/r.ns, r.base)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t\n", r.name, human(r.ns), ratio)
	}
	w.Flush()
	if m, err := mlxbind.Memory(); err == nil {
		fmt.Printf("\nMLX memory: active %d B, peak %d B, cache %d B\n", m.Active, m.Peak, m.Cache)
	}
}

func human(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
