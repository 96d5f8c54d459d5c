package interp

import (
	"regexp"

	"github.com/emily-go/emily/mlxbind"
)

// Release on rebind (issue 10), by reachability (issue 17). yaegi keeps
// every top-level value of every cell in one global frame: re-running
// `big := emily.Ones(1<<24)` declares a new `big` in a new slot and leaves
// the old slot holding the old tensor, and temporaries of top-level
// expressions (`emily.Sum(big)` in `emily.Sum(big).Item()`) stay in slots
// of their own. Nothing reads those slots again, but they keep the tensors
// reachable, so 40 re-runs of a 64 MB cell held 2.56 GB of MLX memory even
// after runtime.GC().
//
// After each cell, the fork's ReleaseUnreachable (third_party/yaegi,
// interp/release.go, emily patch 100) drops the frame's references that
// no code can read again: it keeps every slot a package-level symbol or a
// function body can reach, and replaces the others instead of writing
// through them, so a value reachable in Go terms (a slice element, a
// struct field behind a pointer, a map value, a closure's capture, a
// channel's buffer) is never touched; the Go collector decides the rest.
// An earlier version zeroed dead slots in place, and since the slot of a
// top-level `ts[0]` is the slice element itself, it nilled `ts[0]`.
// Then, when MLX's active memory has grown, the session collects so the
// finalizers free the dropped tensors now rather than at some later
// evaluation.

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
		s.sweepCell(false)
		return
	}
	if s.keepDead {
		s.sweepCell(false)
		return
	}
	s.yi.ReleaseUnreachable()
	s.sweepCell(true) // the cell's tensors that only dead slots held (sweep.go)
	m, err := mlxbind.Memory()
	if err != nil || m.Active < releaseFloor || float64(m.Active) < 1.25*float64(s.releasedAt) {
		return
	}
	s.releasedAt = mlxbind.ReleaseDropped()
}
