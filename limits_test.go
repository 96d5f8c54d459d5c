package emily

import (
	"errors"
	"strings"
	"testing"

	"github.com/emily-go/emily/mlxbind"
)

// mustFail runs f and requires it to panic with an *Error for op whose
// text contains want: never a runtime panic, a fatal error, or a result.
func mustFail(t *testing.T, name, op, want string, f func()) {
	t.Helper()
	err := Try(f)
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: got %v (%T), want an *emily.Error", name, err, err)
		return
	}
	if e.Op != op || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: got %q, want op %s and %q", name, err, op, want)
	}
}

func TestSizesAreCheckedBeforeAllocation(t *testing.T) {
	x := Arange(6)
	for _, tc := range []struct {
		name, op, want string
		f              func()
	}{
		// The constructors are lazy MLX ops now (ops_gen.go): the shim
		// checks their dimensions before MLX sees them.
		{"Zeros(-1)", "Zeros", "egative", func() { Zeros(-1) }},
		{"Zeros(1<<40)", "Zeros", "32 bits", func() { Zeros(1 << 40) }},
		{"Ones(1<<32)", "Ones", "32 bits", func() { Ones(1 << 32) }},
		{"FromSlice overflow", "FromSlice", "2^63", func() {
			FromSlice([]float32{}, 1<<31-1, 1<<31-1, 1<<31-1, 1<<31-1, 0)
		}},
		{"FromSlice wrap-around to 0", "FromSlice", "2^31-1", func() { FromSlice([]float32{}, 1<<32, 1<<32) }},
		{"FromBytes negative", "FromBytes", "negative", func() { FromBytes(nil, Float32, -4, -1) }},
		{"Reshape(1<<32+6)", "Reshape", "32 bits", func() { Reshape(x, 1<<32+6) }},
		{"Sum axis 1<<32", "Sum", "32 bits", func() { Sum(x, 1<<32) }},
		{"Transpose axis 1<<33", "Transpose", "32 bits", func() { Transpose(x, 1<<33) }},
	} {
		mustFail(t, tc.name, tc.op, tc.want, tc.f)
	}
}

func TestAllocationOverMemoryLimitIsAnError(t *testing.T) {
	prev, err := mlxbind.SetMemoryLimit(64 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer mlxbind.SetMemoryLimit(prev)
	// Tensors made from Go data are copied into MLX memory at once, so
	// the copy is checked against the limit first.
	mib := func(n int) []byte { return make([]byte, n<<20) }
	mustFail(t, "128 MiB under a 64 MiB limit", "FromBytes", "more than the memory limit", func() { FromBytes(mib(128), Uint8, 128<<20) })

	held := FromBytes(mib(48), Uint8, 48<<20).Eval() // live
	defer held.Free()
	mustFail(t, "32 MiB more", "FromBytes", "already in use", func() { FromBytes(mib(32), Uint8, 32<<20) })

	// Dropped tensors do not count: the check collects before refusing.
	held.Free()
	for i := range 6 {
		if err := Try(func() { FromBytes(mib(32), Uint8, 32<<20).Eval() }); err != nil { // dropped at once
			t.Fatalf("32 MiB #%d with only dropped tensors in use: %v", i, err)
		}
	}
}

// TestLazyResultsOverMemoryLimitAreAnError: an eager op's result is checked
// against the limit when MLX creates it, before anything evaluates it.
func TestLazyResultsOverMemoryLimitAreAnError(t *testing.T) {
	prev, err := mlxbind.SetMemoryLimit(64 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer mlxbind.SetMemoryLimit(prev)
	mustFail(t, "Zeros of 128 MiB", "Zeros", "more than the memory limit", func() { Zeros(32 << 20) })
	x := Ones(4 << 20) // 16 MiB
	mustFail(t, "an outer product of 64 TiB", "Outer", "more than the memory limit", func() { Outer(x, x) })
	if got := Sum(x).Item(); got != float64(4<<20) {
		t.Fatalf("Sum of a 16 MiB tensor under the limit = %v", got)
	}
}

func TestCheckShapeAgreesWithProduct(t *testing.T) {
	for _, dims := range [][]int{nil, {0}, {3, 4}, {1 << 20, 1 << 10}, {2, 0, 1<<31 - 1}} {
		n, size, err := mlxbind.CheckShape(dims, 4)
		if err != nil || n != int64(product(dims)) || size != 4*n {
			t.Errorf("CheckShape(%v) = %d, %d, %v; want %d elements", dims, n, size, err, product(dims))
		}
	}
}
