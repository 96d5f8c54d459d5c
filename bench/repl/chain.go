// The bench's 100-op eager chain on 1M float32, typed as a user would:
// top-level code, no emily.Scoped, no function. `emily-repl
// bench/repl/chain.go` runs it as a REPL file; scripts/bench-repl.sh runs
// it beside MLX Python's eager chain (bench/peers.py), in turns, and the
// same cells through the Jupyter kernel. It prints one line of JSON: the
// median seconds per chain and the MLX memory the chains needed at their
// peak. Issue 25: eager without a scope ≤ 1.5× MLX Python eager.
import (
	"encoding/json"
	"math/rand"
	"sort"
	"time"
)

rng := rand.New(rand.NewSource(0))
xs := make([]float32, 1<<20)
for i := range xs {
	xs[i] = float32(rng.NormFloat64())
}
x := emily.FromSlice(xs, len(xs)).Eval()
budget := 400 * time.Millisecond
var times []float64
base := emily.Memory().Active
start := time.Now()
for len(times) < 3 || (time.Since(start) < budget && len(times) < 200) {
	t0 := time.Now()
	y := x
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
	times = append(times, time.Since(t0).Seconds())
}
peak := emily.Memory().Peak - base // over all calls
times = times[1:] // the first call warms up
sort.Float64s(times)
out, _ := json.Marshal(map[string]any{"seconds": times[(len(times)-1)/2], "peak_bytes": peak, "calls": len(times)})
fmt.Println(string(out))
