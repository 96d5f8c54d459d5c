// Package supervisor runs an interp.Session in a child process and keeps
// the front end (the REPL or the Jupyter kernel) alive when that process
// dies.
//
// A Go program cannot recover from a fatal runtime error (stack overflow,
// "concurrent map writes", an unlock of an unlocked mutex, out of memory)
// or a SIGSEGV or abort inside MLX's C++: the process ends. (A panic in a
// goroutine that compiled code starts, a time.AfterFunc callback, is
// recovered by the session itself: interp's guard.go.) So the session
// lives in a worker process (`emily-repl session-worker`) and the front
// end talks to it over two pipes. When the worker dies, the Supervisor
// reports why (the fatal line of its stderr and its exit status) and which
// cell was running, starts a fresh worker, and offers %replay, which
// re-runs the cells that had succeeded. An interrupt stops a cell in the
// worker without losing its session, even when the cell is blocked in a
// compiled call (interp's interrupt.go); only a worker that does not
// answer the interrupt within EscalateAfter is restarted, the last
// resort, with an error that says so.
package supervisor

// The wire between Supervisor and worker: one JSON object per line, on
// the worker's fd 3 (requests) and fd 4 (events). Its stdout and stderr
// are only a log, which is also where a dying Go runtime writes its cause.

// request is what the supervisor sends.
type request struct {
	ID     int64  `json:"id"`
	Op     string `json:"op"` // execute, interrupt, complete, is_complete, inspect, input_reply
	Code   string `json:"code,omitempty"`
	Cursor int    `json:"cursor,omitempty"`
	// Origin names where the cell comes from (interp.Origin), for
	// positions in messages: "cell5" is In [5].
	OriginName string `json:"origin_name,omitempty"`
	OriginLine int    `json:"origin_line,omitempty"`
	// input_reply: the line typed (in Code), or EOF when the front end
	// cannot ask for input.
	EOF bool `json:"eof,omitempty"`
}

// event is what the worker sends back.
type event struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"` // ready, stdout, stderr, done, completions, is_complete
	Data string `json:"data,omitempty"`

	// done
	Shown bool           `json:"shown,omitempty"`
	Text  string         `json:"text,omitempty"`
	MIME  map[string]any `json:"mime,omitempty"`
	Err   *wireError     `json:"err,omitempty"`

	// display, clear_output: the display package's Sink and Clearer,
	// forwarded to the front end's writer (display_data on Jupyter).
	Meta      map[string]any `json:"meta,omitempty"`
	DisplayID string         `json:"display_id,omitempty"`
	Update    bool           `json:"update,omitempty"`
	Wait      bool           `json:"wait,omitempty"`

	// completions
	Matches    []string `json:"matches,omitempty"`
	Kinds      []string `json:"kinds,omitempty"`
	Start, End int

	// is_complete
	Complete bool   `json:"complete,omitempty"`
	Indent   string `json:"indent,omitempty"`

	// inspect (the text goes in Text)
	Found bool `json:"found,omitempty"`

	// input_request (the prompt goes in Text)
	Password bool `json:"password,omitempty"`
}

// wireError carries a cell's error across the pipe with what the front
// ends show of it: the text (REPL), the name and traceback (Jupyter).
type wireError struct {
	Name      string   `json:"name"`
	Msg       string   `json:"msg"`
	Traceback []string `json:"traceback,omitempty"`
}

// Error is a cell's error as the worker reported it. It implements the
// kernel's ErrorDetail.
type Error struct{ w wireError }

func (e *Error) Error() string { return e.w.Msg }

// ErrorName is the Jupyter ename, e.g. "CompileError" or "Interrupted".
func (e *Error) ErrorName() string { return e.w.Name }

// Traceback is the Jupyter traceback.
func (e *Error) Traceback() []string { return e.w.Traceback }
