// Package compiler turns traced tensor functions into cached, replayable
// programs: it owns the Jit cache keyed by lane, input signature and
// device, the options and their precedence, the lanes (evaluator, native,
// fuse), the fallback rule, the stream pool of max_concurrency, and the
// events.
package compiler

import (
	"fmt"
	"io"
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

// DefaultCacheSize is how many traced entries (signature × lane × device)
// a function keeps when no cache_size option is given; the least recently
// used one is evicted beyond it.
const DefaultCacheSize = 32

// MaxConcurrencyLimit bounds max_concurrency: each unit is an MLX stream.
const MaxConcurrencyLimit = 64

// Options are settings as given: a zero field is unset. The effective
// value of each field for a call comes from, most specific first, the
// overrides in force (SetOverrides: `%%jit` at the top of a cell), the
// function's own options, then the session defaults (SetDefaultNative,
// SetDefaultDevice) and the built-in ones.
type Options struct {
	Device         string          // "gpu", "cpu"; unset: the session's default device
	Native         *bool           // unset: the session default (EMILY_NATIVE, %config native=…)
	Fuse           *bool           // replay under mlx::core::compile; ignored unless native; unset: false
	Fallback       string          // FallbackEval (the default) or FallbackRaise
	MaxConcurrency int             // concurrent calls, one MLX stream each; unset: 1
	Debug          *bool           // the evaluator lane prints each node as it runs; unset: false
	DebugOut       io.Writer       // where Debug prints; unset: os.Stderr
	CacheSize      int             // traced entries kept; unset: DefaultCacheSize
	Stream         *mlxbind.Stream // run every call on this stream (its device wins over Device)
	Async          *bool           // return before the results are computed (MLX's async_eval); unset: false
	Donate         []int           // indices of the inputs a call consumes (WithDonate); unset: none
}

// Option sets one field of Options.
type Option func(*Options)

// WithDevice picks the device: "gpu" or "cpu".
func WithDevice(d string) Option { return func(o *Options) { o.Device = d } }

// WithNative picks the native lane (true) or the evaluator lane (false).
func WithNative(b bool) Option { return func(o *Options) { o.Native = &b } }

// WithFuse replays under mlx::core::compile, fusing elementwise runs.
func WithFuse(b bool) Option { return func(o *Options) { o.Fuse = &b } }

// WithAsync makes a call return as soon as its work is queued (MLX's
// async_eval), before the results are computed: reading a result waits for
// it. A loop that feeds one call's result to the next (a decode loop) then
// builds call n+1 while call n computes.
func WithAsync(b bool) Option { return func(o *Options) { o.Async = &b } }

// WithDonate makes every call consume the inputs at these indices: the
// call frees them once its graph reads them, so MLX may reuse their
// buffers for the results. A decode step whose KV cache goes in and comes
// out updated then writes the new position into the old cache's buffer;
// without it, the slice update copies the whole cache (a layer's cache is
// still held by the caller), every step. The caller must not use a
// donated input after the call, which frees it also when the run fails;
// an error before the run (a bad argument) leaves it. Ignored while an
// outer function is being traced (the body is inlined there).
func WithDonate(indices ...int) Option {
	return func(o *Options) { o.Donate = append([]int(nil), indices...) }
}

// WithFallback picks FallbackEval or FallbackRaise.
func WithFallback(f string) Option { return func(o *Options) { o.Fallback = f } }

// WithMaxConcurrency lets up to n calls of the function run at once, each
// on its own MLX stream; the program and its constants (the weights) are
// shared. A call beyond n waits for a free stream.
func WithMaxConcurrency(n int) Option { return func(o *Options) { o.MaxConcurrency = n } }

// WithDebug makes the evaluator lane print each node as it runs: the op,
// its operand and result types, and the time to compute it (each node is
// evaluated on its own, so the times are real and the run is slower).
func WithDebug(b bool) Option { return func(o *Options) { o.Debug = &b } }

// WithDebugOutput sends WithDebug's lines to w instead of os.Stderr.
func WithDebugOutput(w io.Writer) Option { return func(o *Options) { o.DebugOut = w } }

// WithCacheSize bounds the traced entries the function keeps (one per
// input signature, lane and device); the least recently used is evicted.
func WithCacheSize(n int) Option { return func(o *Options) { o.CacheSize = n } }

// WithStream runs every call of the function on s.
func WithStream(s mlxbind.Stream) Option { return func(o *Options) { o.Stream = &s } }

// apply applies opts to a copy of o.
func (o Options) apply(opts []Option) Options {
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// validate checks the fields that are set.
func (o Options) validate() error {
	if o.Device != "" {
		if _, err := mlxbind.ParseDevice(o.Device); err != nil {
			return fmt.Errorf("option device: %w", err)
		}
	}
	switch o.Fallback {
	case "", FallbackEval, FallbackRaise:
	default:
		return fmt.Errorf("option fallback: %q is not \"eval\" or \"raise\"", o.Fallback)
	}
	if o.MaxConcurrency < 0 || o.MaxConcurrency > MaxConcurrencyLimit {
		return fmt.Errorf("option max_concurrency: %d is not in 1..%d (one MLX stream per concurrent call; see emily.NewStream for streams of your own)", o.MaxConcurrency, MaxConcurrencyLimit)
	}
	if o.CacheSize < 0 {
		return fmt.Errorf("option cache_size: %d is negative (use 1 or more; %d is the default)", o.CacheSize, DefaultCacheSize)
	}
	return nil
}

// over returns o with every field that over sets taken from over.
func (o Options) over(over *Options) Options {
	if over == nil {
		return o
	}
	if over.Device != "" {
		o.Device = over.Device
	}
	if over.Native != nil {
		o.Native = over.Native
	}
	if over.Fuse != nil {
		o.Fuse = over.Fuse
	}
	if over.Fallback != "" {
		o.Fallback = over.Fallback
	}
	if over.MaxConcurrency != 0 {
		o.MaxConcurrency = over.MaxConcurrency
	}
	if over.Debug != nil {
		o.Debug = over.Debug
	}
	if over.DebugOut != nil {
		o.DebugOut = over.DebugOut
	}
	if over.CacheSize != 0 {
		o.CacheSize = over.CacheSize
	}
	if over.Async != nil {
		o.Async = over.Async
	}
	if over.Donate != nil {
		o.Donate = over.Donate
	}
	if over.Stream != nil {
		o.Stream = over.Stream
	}
	return o
}

// String renders the options that are set as key=value, sorted.
func (o Options) String() string {
	var kv []string
	if o.Device != "" {
		kv = append(kv, "device="+o.Device)
	}
	if o.Native != nil {
		kv = append(kv, "native="+strconv.FormatBool(*o.Native))
	}
	if o.Fuse != nil {
		kv = append(kv, "fuse="+strconv.FormatBool(*o.Fuse))
	}
	if o.Fallback != "" {
		kv = append(kv, "fallback="+o.Fallback)
	}
	if o.MaxConcurrency != 0 {
		kv = append(kv, "max_concurrency="+strconv.Itoa(o.MaxConcurrency))
	}
	if o.Debug != nil {
		kv = append(kv, "debug="+strconv.FormatBool(*o.Debug))
	}
	if o.CacheSize != 0 {
		kv = append(kv, "cache_size="+strconv.Itoa(o.CacheSize))
	}
	sort.Strings(kv)
	return strings.Join(kv, " ")
}

// resolve applies opts to zero Options and validates the result.
func resolve(opts []Option) (Options, error) {
	o := Options{}.apply(opts)
	return o, o.validate()
}

// Session defaults: native (EMILY_NATIVE, %config native=…) and the
// device (emily.SetDefaultDevice, %config device=…).
var (
	sessionNative atomic.Bool
	sessionDevice atomic.Int32
)

func init() {
	sessionNative.Store(true)
	sessionDevice.Store(int32(mlxbind.DefaultDevice()))
}

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

// SetDefaultDevice sets the device of jitted functions without a device
// option (emily.SetDefaultDevice calls it: `%config device=cpu`).
func SetDefaultDevice(d mlxbind.Device) { sessionDevice.Store(int32(d)) }

// DefaultDevice returns the session's default device.
func DefaultDevice() mlxbind.Device { return mlxbind.Device(sessionDevice.Load()) }

// overrides are the options in force for every call (SetOverrides).
var overrides atomic.Pointer[Options]

// SetOverrides puts opts in force for every jitted call, over each
// function's own options, until restore is called (which brings back the
// overrides that were in force before); overrides set while others are
// in force add to them. The session sets them for the
// duration of a cell that starts with `%%jit key=value…`.
func SetOverrides(opts ...Option) (restore func(), err error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	prev := overrides.Load()
	if prev != nil {
		o = prev.over(&o) // nested overrides add to the enclosing ones
	}
	overrides.Store(&o)
	return func() { overrides.Store(prev) }, nil
}

// Overrides returns the overrides in force, if any.
func Overrides() (Options, bool) {
	if o := overrides.Load(); o != nil {
		return *o, true
	}
	return Options{}, false
}

// OptionKeys are the keys ParseOptions knows, for messages.
const OptionKeys = "native, fuse, device, fallback, max_concurrency, debug, cache_size"

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
		case "native", "fuse", "debug":
			b, perr := strconv.ParseBool(v)
			if perr != nil {
				return nil, nil, fmt.Errorf("option %s=%s: not a bool (use true or false)", k, v)
			}
			opts = append(opts, map[string]func(bool) Option{"native": WithNative, "fuse": WithFuse, "debug": WithDebug}[k](b))
		case "device":
			opts = append(opts, WithDevice(strings.ToLower(v)))
		case "fallback":
			opts = append(opts, WithFallback(v))
		case "max_concurrency", "cache_size":
			n, perr := strconv.Atoi(v)
			if perr != nil {
				return nil, nil, fmt.Errorf("option %s=%s: not an integer", k, v)
			}
			if k == "cache_size" {
				opts = append(opts, WithCacheSize(n))
			} else {
				opts = append(opts, WithMaxConcurrency(n))
			}
		default:
			unknown = append(unknown, k)
		}
	}
	if _, err := resolve(opts); err != nil {
		return nil, nil, err
	}
	return opts, unknown, nil
}
