package interp

import (
	"context"
	"io"
	"sync"
)

// InputRequester is implemented by the stdout writer of a front end that
// can ask its user for a line: the Jupyter kernel (an input_request on
// the stdin channel) and the terminal REPL. Interpreted code that reads
// os.Stdin (fmt.Scanln, bufio.NewReader(os.Stdin)) then waits for that
// line. RequestInput returns the line without its newline; io.EOF when
// the front end cannot ask (a notebook run with allow_stdin false), or
// ctx's error when the cell is interrupted while waiting.
type InputRequester interface {
	RequestInput(ctx context.Context, prompt string, password bool) (string, error)
}

// stdinReader is what yaegi binds os.Stdin and fmt.Scan* to. During a
// cell whose stdout is an InputRequester it asks for a line each time
// its buffer runs dry; otherwise it reads the session's Stdin option.
type stdinReader struct {
	s   *Session
	def io.Reader // Options.Stdin: os.Stdin by default

	mu  sync.Mutex
	buf []byte
	ctx context.Context // the running cell's
}

// setCell starts (ctx non-nil) or ends a cell. Input the cell did not read
// is dropped: the next cell asks afresh.
func (r *stdinReader) setCell(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctx, r.buf = ctx, nil
}

func (r *stdinReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) == 0 {
		req, ok := r.s.stdout.Target().(InputRequester)
		if !ok || r.ctx == nil {
			if r.def == nil {
				return 0, io.EOF
			}
			r.mu.Unlock()
			n, err := r.def.Read(p)
			r.mu.Lock()
			return n, err
		}
		line, err := req.RequestInput(r.ctx, "", false)
		if err != nil {
			return 0, err
		}
		r.buf = append([]byte(line), '\n')
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
