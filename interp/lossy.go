package interp

import (
	"fmt"
	"go/token"
)

// onLossyCall is yaegi's OnLossyCall: a call that the cell compiles would
// print or encode a session type differently from go run (compiled fmt
// and encoding/json cannot see the names and methods of the session's
// types inside containers, nor under %T, %#v and %+v). The cell is told
// on its stderr, once per call site, before it runs: silent wrong output
// is the one result that is never acceptable (issue 18; %help limits).
func (s *Session) onLossyCall(pos token.Position, msg string) {
	at, _ := s.positions(pos.String())
	s.filesMu.Lock()
	key := fmt.Sprintf("%d %s", s.cellNum, at)
	if s.lossySeen == nil || s.lossyCell != s.cellNum {
		s.lossySeen, s.lossyCell = map[string]bool{}, s.cellNum
	}
	seen := s.lossySeen[key]
	s.lossySeen[key] = true
	s.filesMu.Unlock()
	if !seen {
		fmt.Fprintf(s.stderr, "warning: %s: %s\n", at, msg)
	}
}
