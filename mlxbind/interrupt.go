package mlxbind

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"strings"
	"sync/atomic"
)

// ErrInterrupted is wrapped by the error of a loop that Interrupt stopped.
var ErrInterrupted = errors.New("interrupted")

// interruptPrefix starts the shim's message for a stopped loop.
const interruptPrefix = "interrupted"

var interrupts atomic.Int64

// Interrupt stops every While loop running now, in the shim (native and
// fuse lanes) or in Go (Interrupts), at its next iteration. It takes no
// lock: the loop it stops holds the MLX lock.
func Interrupt() {
	interrupts.Add(1)
	C.emily_interrupt()
}

// Interrupts returns how many times Interrupt was called: a loop notes it
// when it starts and stops when it changes.
func Interrupts() int64 { return interrupts.Load() }

// interruptError marks the shim's message for a stopped loop.
func interruptError(msg string) error {
	if strings.HasPrefix(msg, interruptPrefix) {
		return interrupted(msg)
	}
	return errors.New(msg)
}

type interrupted string

func (e interrupted) Error() string { return string(e) }
func (e interrupted) Unwrap() error { return ErrInterrupted }
