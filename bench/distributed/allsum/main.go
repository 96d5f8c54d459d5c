// Command allsum times distributed.AllSum over the world group, run in N
// ranks as
//
//	emily-repl launch -n N --backend nccl bench/distributed/allsum/main.go [MB ...]
//
// (scripts/gpu-multi.sh; ring on the CPU works too). For each size (MB of
// float32, default 1 to 1024 by powers of 4) every rank sums a tensor of
// that size over the group, evaluated one all-reduce at a time, after
// warm-up; rank 0 prints one line per size with the median time and the
// bandwidths nccl-tests reports: algbw = bytes/time and busbw = algbw ·
// 2(n-1)/n (the bytes each link carries in a ring all-reduce, so that
// figures compare across n). bench/distributed/torch_allreduce.py times
// torch.distributed.all_reduce the same way.
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/distributed"
)

func main() {
	backend := os.Getenv("ALLSUM_BACKEND")
	if backend == "" {
		backend = "any"
	}
	g := distributed.Init(backend)
	sizes := []float64{1, 4, 16, 64, 256, 1024}
	if len(os.Args) > 1 {
		sizes = sizes[:0]
		for _, a := range os.Args[1:] {
			mb, err := strconv.ParseFloat(a, 64)
			if err != nil || mb <= 0 {
				panic(fmt.Sprintf("allsum: size %q: give sizes in MB (e.g. 1 256)", a))
			}
			sizes = append(sizes, mb)
		}
	}
	n := g.Size()
	if g.Rank() == 0 {
		fmt.Printf("allsum: %s world of %d, device %s, MLX %s\n", g.Backend(), n, emily.DefaultDevice(), emily.MLXVersion())
	}
	for _, mb := range sizes {
		elems := int(mb * (1 << 20) / 4)
		x := emily.FullOf(float64(g.Rank()+1), emily.Float32, elems).Eval()
		// Enough repeats for ~0.5 s of 100 GB/s traffic, at least 5.
		reps := max(5, min(50, int(5e10/float64(4*elems))))
		times := make([]float64, 0, reps)
		for i := 0; i < 3+reps; i++ {
			t0 := time.Now()
			y := distributed.AllSum(x, g).Eval()
			d := time.Since(t0).Seconds()
			if i == 0 {
				// Every rank holds rank+1: the sum is n(n+1)/2 everywhere.
				if got, want := y.Slice(0).Item(), float64(n*(n+1)/2); got != want {
					panic(fmt.Sprintf("allsum: %g MB: got %g, want %g", mb, got, want))
				}
			}
			y.Free()
			if i >= 3 {
				times = append(times, d)
			}
		}
		x.Free()
		sort.Float64s(times)
		med := times[len(times)/2]
		bytes := float64(4 * elems)
		alg := bytes / med / 1e9
		bus := alg * 2 * float64(n-1) / float64(n)
		if g.Rank() == 0 {
			fmt.Printf("allsum n=%d size_mb=%g time_us=%.1f algbw_gbps=%.2f busbw_gbps=%.2f\n", n, mb, med*1e6, alg, bus)
		}
	}
}
