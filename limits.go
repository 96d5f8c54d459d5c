package emily

import (
	"fmt"

	"github.com/emily-go/emily/mlxbind"
)

// Limits before allocation (issue 10): a constructor checks the shape it
// was given, and the bytes that shape needs against MLX's memory limit,
// before Go or MLX allocates anything. Before this, Zeros(1<<40) died in
// a fatal Go out-of-memory, Ones(1<<32) grew to 22 GB under a 4 GB limit
// until the OS killed it, and Zeros(-1) was a raw makeslice panic.

// memoryHint says what to do about an allocation over the memory limit.
const memoryHint = "make it smaller, Free tensors you no longer need, or raise the limit with EMILY_MEMORY_LIMIT / emily.SetMemoryLimit"

const shapeHint = "each dimension must be between 0 and 2^31-1 (MLX dimensions are 32-bit)"

// checkAlloc panics with an *Error when a tensor of dims with elemSize-byte
// elements cannot be made, and otherwise returns its element count.
func checkAlloc(op string, dims []int, elemSize int) int {
	n, size, err := mlxbind.CheckShape(dims, elemSize)
	if err != nil {
		panic(&Error{Op: op, Err: err, Hint: shapeHint})
	}
	if err := checkMemory(size); err != nil {
		panic(&Error{Op: op, Err: fmt.Errorf("shape %v: %w", dims, err),
			Hint: memoryHint})
	}
	return int(n)
}

// checkMemory reports an error when size bytes would take MLX past its
// memory limit. Tensors that are unreachable but not yet finalized count
// as in use until a collection, so one is run before refusing.
func checkMemory(size int64) error {
	limit, err := mlxbind.MemoryLimit()
	if err != nil || limit == 0 {
		return nil
	}
	need := uint64(size)
	if need > limit {
		return fmt.Errorf("needs %s, more than the memory limit of %s", bytesText(need), bytesText(limit))
	}
	m, err := mlxbind.Memory()
	if err != nil || m.Active+need <= limit {
		return nil
	}
	if active := mlxbind.ReleaseDropped(); active+need > limit {
		return fmt.Errorf("needs %s with %s already in use, past the memory limit of %s",
			bytesText(need), bytesText(active), bytesText(limit))
	}
	return nil
}

// checkedResultSize is the result size from which an eager op's results
// are checked against the memory limit: below it the check would cost more
// than it can save.
const checkedResultSize = 1 << 20

// checkResultMemory panics with an *Error, freeing outs, when an eager op's
// results would take MLX past its memory limit. MLX is lazy: the results
// exist only as shapes until something evaluates them, so this is still
// before the allocation (Zeros(1<<30) under a 1 GiB limit used to pass
// here and allocate 4 GiB at the first Sum).
func checkResultMemory(op string, outs []*mlxbind.Array, xs []*Tensor) {
	var size int64
	for _, o := range outs {
		size += int64(o.Size()) * int64(o.DType().Size())
	}
	if size < checkedResultSize {
		return
	}
	if err := checkMemory(size); err != nil {
		for _, o := range outs {
			o.Free()
		}
		e := newError(op, nil, fmt.Errorf("the result: %w", err), xs)
		e.Hint = memoryHint
		panic(e)
	}
}

// bytesText writes n bytes as people read them: 1.5 GiB, 64 MiB, 512 B.
func bytesText(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
