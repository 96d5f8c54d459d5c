package interp

import "fmt"

// Pager is implemented by the stdout writer of a front end with a pager:
// the Jupyter kernel, which sends the bundle as the execute_reply's
// "page" payload (JupyterLab shows it under the cell, rendered; the
// classic notebook in its pager). Text front ends print instead.
type Pager interface {
	Page(bundle map[string]any)
}

// NextInputSetter is implemented by the stdout writer of a front end that
// can put text in the user's next input (%load): the Jupyter kernel (the
// execute_reply's set_next_input payload, which replaces the cell) and
// the terminal REPL (the next prompt, ready to edit).
type NextInputSetter interface {
	SetNextInput(text string)
}

// page shows long help: paged as Markdown where the front end can, else
// printed.
func (s *Session) page(markdown string) {
	if p, ok := s.stdout.Target().(Pager); ok {
		p.Page(map[string]any{"text/plain": markdown, "text/markdown": markdown})
		return
	}
	fmt.Fprint(s.stdout, markdown)
}
