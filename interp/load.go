package interp

import (
	"os"
	"strings"
)

// NextInputSetter is implemented by the stdout writer of a front end that
// can put text in the user's next input: the Jupyter kernel (the
// execute_reply's set_next_input payload, which replaces the cell) and
// the terminal REPL (the next prompt, ready to edit).
type NextInputSetter interface {
	SetNextInput(text string)
}

// loadMagic is %load FILE: the file's code becomes the next input, headed
// by a comment naming it, as IPython's %load does; running that input
// runs the file.
func (s *Session) loadMagic(args []string) error {
	if len(args) != 1 {
		return magicError("%%load takes one file name, e.g. %%load model.go")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return magicError("%%load %s: %v", args[0], err)
	}
	setter, ok := s.stdout.Target().(NextInputSetter)
	if !ok {
		return magicError("%%load %s: this front end has no next input to fill (use it in the REPL or a notebook; run a file with emily-repl FILE)", args[0])
	}
	setter.SetNextInput("// %load " + args[0] + "\n" + strings.TrimRight(string(b), "\n") + "\n")
	return nil
}
