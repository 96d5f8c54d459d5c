package interp

import (
	"fmt"
	"reflect"

	"github.com/emily-go/emily/display"
	"github.com/emily-go/emily/display/progress"
	"github.com/traefik/yaegi/interp"
)

// displayExports binds the display package's Show, Updatable and Clear,
// and progress.New, to this session's output (the generated symbols write to os.Stdout), and
// maps interpreted values with a MIMEBundle, String or Error method to the
// interfaces the display package checks for: yaegi otherwise hands
// compiled code a struct without methods.
func (s *Session) displayExports() interp.Exports {
	show := reflect.ValueOf(func(vs ...any) { display.ShowTo(s.stdout, vs...) })
	updatable := reflect.ValueOf(func(v any) *display.Handle { return display.UpdatableTo(s.stdout, v) })
	clear := reflect.ValueOf(func(wait bool) { display.ClearTo(s.stdout, wait) })
	return interp.Exports{
		"github.com/emily-go/emily/display/display": {
			"Show":      show,
			"Updatable": updatable,
			"Clear":     clear,
		},
		"github.com/emily-go/emily/display/progress/progress": {
			"New": reflect.ValueOf(func(total int) *progress.Bar { return progress.NewTo(s.stdout, total) }),
		},
		".": {"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{
			show:      displayTypes,
			updatable: displayTypes,
		})},
	}
}

// displayTypes are the interfaces rendering looks for, most specific first.
var displayTypes = []reflect.Type{
	reflect.TypeOf((*display.Displayer)(nil)).Elem(),
	reflect.TypeOf((*fmt.Stringer)(nil)).Elem(),
	reflect.TypeOf((*error)(nil)).Elem(),
}
