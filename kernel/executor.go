package kernel

import (
	"context"
	"io"
)

// MIMEBundle maps a MIME type ("text/plain", "text/html", "image/png"
// base64-encoded) to its rendered data, as Jupyter's display messages carry it.
type MIMEBundle map[string]any

// Executor runs the code of one cell. The interp package's Session
// implements it; the kernel knows nothing else about the session.
type Executor interface {
	// Execute runs code. Output the cell prints goes to stdout and stderr
	// as it is produced (the kernel forwards it as `stream` messages). A
	// non-nil bundle is the value of the cell's final expression and
	// becomes the `execute_result`. An error becomes an error reply; if it
	// implements ErrorDetail, its name and traceback are used.
	Execute(ctx context.Context, code string, stdout, stderr io.Writer) (MIMEBundle, error)
}

// ErrorDetail is implemented by errors that know their Jupyter `ename` and
// traceback lines; other errors report as ename "Error" and their text.
type ErrorDetail interface {
	error
	ErrorName() string
	Traceback() []string
}

// SessionRestarter is implemented by errors that report a fresh session
// (the old one died, or did not stop at an interrupt and was restarted):
// the kernel then counts cells from 1 again, as Jupyter does after a
// restart, so that the reset shows in the prompts.
type SessionRestarter interface {
	SessionRestarted() bool
}

// KindCompleter is a Completer that also tells each match's kind
// ("function", "type", "variable", …): complete_reply then carries them in
// metadata._jupyter_types_experimental, which JupyterLab shows as icons.
type KindCompleter interface {
	CompleteKinds(code string, cursor int) (matches, kinds []string, start, end int)
}

// Inspector is implemented by Executors that can describe the symbol at
// a cursor (Shift-Tab); the kernel answers inspect_request with it, the
// text as text/plain. cursor is a byte offset into code.
type Inspector interface {
	Inspect(code string, cursor int) (text string, found bool)
}

// Completer is implemented by Executors that can complete code. The kernel
// answers complete_request with it; offsets are byte offsets into code.
type Completer interface {
	Complete(code string, cursor int) (matches []string, start, end int)
}

// CompletenessChecker is implemented by Executors that can tell whether a
// cell is ready to run; the kernel answers is_complete_request with it.
// status is "complete", "incomplete" (indent is then the next line's
// indentation) or "invalid" (no more lines can make it valid). Without
// one, the kernel answers "unknown".
type CompletenessChecker interface {
	CheckComplete(code string) (status, indent string)
}
