// Package compiler turns traced tensor functions into cached, replayable
// programs: it owns the Jit cache keyed by input signature, the options,
// the lanes (evaluator, native, fuse), the fallback rule and the events.
package compiler

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/emily-go/emily/mlxbind"
)

// Fallback values: what a native Jit does when lowering meets something the
// IR cannot express.
const (
	FallbackEval  = "eval"  // run the whole function in the evaluator lane, emit one event
	FallbackRaise = "raise" // return the lowering error (for CI)
)

// Options are a jitted function's settings. The zero value means: default
// device, session-default native, no fuse, fallback eval.
type Options struct {
	Device         string // "gpu", "cpu" or "" (gpu when MLX has one)
	Native         *bool  // nil: the session default (EMILY_NATIVE, %config native=…)
	Fuse           bool   // replay under mlx::core::compile; ignored unless native
	Fallback       string // FallbackEval (default) or FallbackRaise
	MaxConcurrency int    // accepted up to 1
}

// Option sets one field of Options.
type Option func(*Options)

// WithDevice picks the device: "gpu" or "cpu".
func WithDevice(d string) Option { return func(o *Options) { o.Device = d } }

// WithNative picks the native lane (true) or the evaluator lane (false).
func WithNative(b bool) Option { return func(o *Options) { o.Native = &b } }

// WithFuse replays under mlx::core::compile, fusing elementwise runs.
func WithFuse(b bool) Option { return func(o *Options) { o.Fuse = b } }

// WithFallback picks FallbackEval or FallbackRaise.
func WithFallback(f string) Option { return func(o *Options) { o.Fallback = f } }

// WithMaxConcurrency is accepted for compatibility; values above 1 are an error.
func WithMaxConcurrency(n int) Option { return func(o *Options) { o.MaxConcurrency = n } }

// resolve applies opts and validates the result.
func resolve(opts []Option) (Options, error) {
	var o Options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.Device != "" {
		if _, err := mlxbind.ParseDevice(o.Device); err != nil {
			return o, fmt.Errorf("option device: %w", err)
		}
	}
	switch o.Fallback {
	case "":
		o.Fallback = FallbackEval
	case FallbackEval, FallbackRaise:
	default:
		return o, fmt.Errorf("option fallback: %q is not \"eval\" or \"raise\"", o.Fallback)
	}
	if o.MaxConcurrency > 1 {
		return o, fmt.Errorf("option max_concurrency: %d > 1: a jitted function runs one call at a time; for concurrent work use separate Streams", o.MaxConcurrency)
	}
	return o, nil
}

var sessionNative atomic.Bool

func init() { sessionNative.Store(true) }

// LoadEnvDefaults reads EMILY_NATIVE into the session default for native.
// An unparsable value is an error, not a silent default.
func LoadEnvDefaults() error {
	v, ok := os.LookupEnv("EMILY_NATIVE")
	if !ok || v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("EMILY_NATIVE=%q: not a bool (use true or false)", v)
	}
	sessionNative.Store(b)
	return nil
}

// SetDefaultNative sets the session default for functions without an
// explicit native option (what `%config native=…` changes).
func SetDefaultNative(b bool) { sessionNative.Store(b) }

// DefaultNative returns the session default for native.
func DefaultNative() bool { return sessionNative.Load() }

// ParseOptions turns key=value settings typed by a person (the %jit magic)
// into Options. Unknown keys are returned, not rejected: the library drops
// them, and the magic warns about them.
func ParseOptions(kv map[string]string) (opts []Option, unknown []string, err error) {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := kv[k]
		switch k {
		case "native", "fuse":
			b, perr := strconv.ParseBool(v)
			if perr != nil {
				return nil, nil, fmt.Errorf("option %s=%s: not a bool (use true or false)", k, v)
			}
			if k == "native" {
				opts = append(opts, WithNative(b))
			} else {
				opts = append(opts, WithFuse(b))
			}
		case "device":
			opts = append(opts, WithDevice(strings.ToLower(v)))
		case "fallback":
			opts = append(opts, WithFallback(v))
		case "max_concurrency":
			n, perr := strconv.Atoi(v)
			if perr != nil {
				return nil, nil, fmt.Errorf("option max_concurrency=%s: not an integer", v)
			}
			opts = append(opts, WithMaxConcurrency(n))
		default:
			unknown = append(unknown, k)
		}
	}
	if _, err := resolve(opts); err != nil {
		return nil, nil, err
	}
	return opts, unknown, nil
}
