package interp

import (
	"reflect"
	"regexp"
	"unsafe"

	"github.com/emily-go/emily/mlxbind"
	"github.com/traefik/yaegi/interp"
)

// Release on rebind (issue 10). yaegi keeps every top-level value of every
// cell in one global frame: re-running `big := emily.Ones(1<<24)` declares
// a new `big` in a new slot and leaves the old slot holding the old
// tensor, and temporaries of top-level expressions (`emily.Sum(big)` in
// `emily.Sum(big).Item()`) stay in slots of their own. Nothing reads those
// slots again, but they keep the tensors reachable, so 40 re-runs of a
// 64 MB cell held 2.56 GB of MLX memory even after runtime.GC().
//
// After each cell, releaseDead zeroes every slot of the global frame that
// holds a tensor and is not the slot of a current global variable, then,
// when MLX's active memory has grown, collects so the finalizers free
// them now rather than at some later evaluation.

// goKeyword finds a go statement (or the word go, which is close enough).
var goKeyword = regexp.MustCompile(`\bgo\b`)

// releaseFloor is the active memory below which no collection is run
// after a cell: a small session should not pay a GC per cell.
const releaseFloor = 32 << 20

// releaseDead drops the global frame's references to unreachable tensors
// and frees their MLX memory when enough has accumulated.
func (s *Session) releaseDead(code string) {
	// Goroutines the session started may write to the global frame while
	// this reads it (the race detector showed it): skip while any runs,
	// and after a cell with a go statement, whose goroutine may not have
	// reached its GoStart yet. A later cell releases what is left.
	if s.rt.goLive.Load() > 0 || goKeyword.MatchString(code) {
		return
	}
	data := globalFrame(s.yi)
	if data == nil {
		return
	}
	live := liveGlobals(s.yi)
	if live == nil {
		return
	}
	for _, v := range data {
		if !v.IsValid() || !v.CanSet() || (v.CanAddr() && live[v.UnsafeAddr()]) {
			continue
		}
		if holdsTensor(v) {
			v.Set(reflect.Zero(v.Type()))
		}
	}
	m, err := mlxbind.Memory()
	if err != nil || m.Active < releaseFloor || float64(m.Active) < 1.25*float64(s.releasedAt) {
		return
	}
	s.releasedAt = mlxbind.ReleaseDropped()
}

// liveGlobals returns the addresses of the current global variables
// slots, or nil when yaegi cannot list them now: its Globals panics with
// an index out of range after a cell that declares a function literal
// (`f := func() {…}`), until the next cell grows the frame. Skipping one
// release is harmless; the next cell's finds the same dead slots.
func liveGlobals(yi *interp.Interpreter) (live map[uintptr]bool) {
	defer func() {
		if recover() != nil {
			live = nil
		}
	}()
	live = map[uintptr]bool{}
	for _, v := range yi.Globals() {
		if v.IsValid() && v.CanAddr() {
			live[v.UnsafeAddr()] = true
		}
	}
	return live
}

// holdsTensor reports whether v is a tensor, directly or in an interface.
func holdsTensor(v reflect.Value) bool {
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v.Type() == tensorType && !v.IsNil()
}

// globalFrame returns the values of yaegi's global frame. yaegi exports no
// way to reach them, so this reads its unexported fields (pinned at
// v0.16.1: Interpreter.frame *frame, frame.data []reflect.Value);
// TestReleaseOnRebind fails if a yaegi upgrade moves them. It returns nil
// if the layout is not the expected one, and release is then skipped.
func globalFrame(yi *interp.Interpreter) []reflect.Value {
	iv := reflect.ValueOf(yi).Elem().FieldByName("frame")
	if !iv.IsValid() || iv.Kind() != reflect.Pointer || iv.IsNil() {
		return nil
	}
	fv := reflect.NewAt(iv.Type().Elem(), unsafe.Pointer(iv.Pointer())).Elem()
	dv := fv.FieldByName("data")
	if !dv.IsValid() || dv.Type() != reflect.TypeFor[[]reflect.Value]() {
		return nil
	}
	return *(*[]reflect.Value)(unsafe.Pointer(dv.UnsafeAddr()))
}
