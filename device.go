package emily

import (
	"fmt"
	"sync/atomic"

	"github.com/emily-go/emily/mlxbind"
)

var defaultDevice atomic.Int32

func init() { defaultDevice.Store(int32(mlxbind.DefaultDevice())) }

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
	return nil
}

// DefaultDevice returns "gpu" or "cpu".
func DefaultDevice() string { return mlxbind.Device(defaultDevice.Load()).String() }

// MLXVersion returns the version of the MLX library in use.
func MLXVersion() string { return mlxbind.Version() }

func defaultStream() mlxbind.Stream {
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
