// Package testhooks holds switches that checks inside this module flip to
// see past a safety net of the emily package; nothing outside the module
// can import it.
package testhooks

import "sync/atomic"

// NoGradientGuard, when set, lets Grad, VJP and JVP differentiate through
// ops whose MLX gradient is known to be wrong (emily's gradcheck.go), so
// that internal/opcheck can confirm MLX still gets them wrong and notice
// when a new MLX gets them right.
var NoGradientGuard atomic.Bool
