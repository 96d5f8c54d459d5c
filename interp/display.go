package interp

import (
	"strings"

	"github.com/emily-go/emily/display"
)

// makeResult renders the values of a cell's final expression: a tensor as
// its preview, anything else with fmt's %v (yaegi hands values of
// interpreted types with a String or Error method to Show as fmt.Stringer
// or error, so those methods are used).
func makeResult(vs []any) Result {
	if len(vs) == 0 {
		return Result{}
	}
	if len(vs) == 1 && vs[0] == nil {
		// A nil error (or any nil interface) shows nothing, as IPython
		// shows nothing for None: `f()` returning a nil error is a success.
		return Result{}
	}
	texts := make([]string, len(vs))
	for i, v := range vs {
		texts[i] = display.Text(v)
	}
	r := Result{Shown: true, Text: strings.Join(texts, "\n")}
	if len(vs) == 1 {
		r.Value = vs[0]
	} else {
		r.Value = vs
	}
	return r
}
