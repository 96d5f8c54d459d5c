package emily

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/mlxbind"
)

var defaultDevice atomic.Int32

func init() {
	defaultDevice.Store(int32(mlxbind.DefaultDevice()))
	if v := os.Getenv("EMILY_MEMORY_LIMIT"); v != "" {
		if err := SetMemoryLimit(v); err != nil {
			fmt.Fprintln(os.Stderr, "emily: EMILY_MEMORY_LIMIT:", err)
		}
	}
}

// SetMemoryLimit caps MLX's memory: a byte count with an optional K, M or
// G suffix (powers of 1024), e.g. "8G". On a shared GPU keep it well under
// the card's free memory: MLX's CUDA allocator uses managed memory for some
// buffers. Reads EMILY_MEMORY_LIMIT at start-up.
func SetMemoryLimit(limit string) error {
	s := strings.ToUpper(strings.TrimSpace(limit))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	mult := uint64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			mult, s = 1<<10, s[:n-1]
		case 'M':
			mult, s = 1<<20, s[:n-1]
		case 'G':
			mult, s = 1<<30, s[:n-1]
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return fmt.Errorf("emily.SetMemoryLimit: %q is not a size like 8G, 512M or 1048576", limit)
	}
	if _, err := mlxbind.SetMemoryLimit(n * mult); err != nil {
		return fmt.Errorf("emily.SetMemoryLimit: %w", err)
	}
	return nil
}

// SetDefaultDevice picks where new tensors live and eager ops run: "gpu" or
// "cpu". The initial default is the GPU when the installed MLX has one.
func SetDefaultDevice(device string) error {
	d, err := mlxbind.ParseDevice(device)
	if err != nil {
		return fmt.Errorf("emily.SetDefaultDevice: %w", err)
	}
	if !d.Available() {
		return fmt.Errorf("emily.SetDefaultDevice: %s is not available in this MLX build (MLX %s)", device, mlxbind.Version())
	}
	defaultDevice.Store(int32(d))
	compiler.SetDefaultDevice(d) // jitted functions without a device option follow it
	return nil
}

// DefaultDevice returns "gpu" or "cpu".
func DefaultDevice() string { return mlxbind.Device(defaultDevice.Load()).String() }

// MLXVersion returns the version of the MLX library in use.
func MLXVersion() string { return mlxbind.Version() }

// defaultStream is where tensors are made and operand-less ops run: the
// stream Stream.Do chose for this goroutine, else the default device's.
func defaultStream() mlxbind.Stream {
	if s, ok := currentStream(); ok {
		return s
	}
	s, err := mlxbind.DefaultStream(mlxbind.Device(defaultDevice.Load()))
	if err != nil {
		panic(&Error{Op: "stream", Err: err})
	}
	return s
}

// MemoryStats are MLX allocator statistics in bytes.
type MemoryStats = mlxbind.MemoryStats

// Memory returns MLX's active, peak and cached memory.
func Memory() MemoryStats {
	m, err := mlxbind.Memory()
	if err != nil {
		panic(&Error{Op: "Memory", Err: err})
	}
	return m
}
