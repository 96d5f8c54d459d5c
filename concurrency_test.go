package emily_test

import (
	"sync"
	"testing"

	"github.com/emily-go/emily"
)

// TestConcurrentGoroutines runs eager ops, first calls (traces) and replays
// of one jitted function from many goroutines at once, as a server or a
// notebook's background goroutines would. Goroutines move between OS
// threads; the shim's streams and lock must make that safe (run with -race).
func TestConcurrentGoroutines(t *testing.T) {
	f := emily.Jit(func(a, b *emily.Tensor) *emily.Tensor {
		return emily.Sum(emily.Mul(a, b), -1)
	}).(func(*emily.Tensor, *emily.Tensor) *emily.Tensor)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- emily.Try(func() {
				for i := 0; i < 30; i++ {
					n := 1 + (g+i)%4 // a few signatures, traced concurrently
					x := emily.Full(float64(g), n, 3)
					got := f(x, emily.Ones(n, 3)).ToFloat32s()
					eager := emily.Sum(emily.Add(x, x)).Item()
					if len(got) != n || got[0] != float32(3*g) || eager != float64(6*g*n) {
						t.Errorf("goroutine %d call %d: jit %v, eager %v", g, i, got, eager)
						return
					}
				}
			})
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
