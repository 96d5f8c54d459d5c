package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// executeRequest is the content of execute_request.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// storeHistory applies the spec's defaults: store_history defaults to true
// and silent forces it false.
func (r *executeRequest) storeHistory() bool {
	if r.Silent {
		return false
	}
	return r.StoreHistory == nil || *r.StoreHistory
}

// stopOnError reports whether a failure aborts the queued cells; the spec
// makes it the default.
func (r *executeRequest) stopOnError() bool {
	return r.StopOnError == nil || *r.StopOnError
}

// handleExecute runs one cell: execute_input, the cell's streams, then
// execute_result or error on iopub, and execute_reply on shell.
func (k *kernel) handleExecute(m *message) {
	var req executeRequest
	if !k.unmarshalContent(k.shell, m, &req) {
		return
	}
	// Like IPython, the counter only advances for cells that enter history,
	// and a cell reports the count it was given.
	if req.storeHistory() {
		k.execCount++
	}
	count := k.execCount
	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}

	// silent means no output on iopub at all, so streams go nowhere.
	var stdout, stderr io.Writer = io.Discard, io.Discard
	var streams []*streamWriter
	payloads := []any{}
	if !req.Silent {
		o, e := k.newStream(m, "stdout"), k.newStream(m, "stderr")
		o.allowStdin, o.other, o.payloads = req.AllowStdin, e, &payloads
		stdout, stderr, streams = o, e, []*streamWriter{o, e}
	}
	bundle, interrupted, err := k.runCell(req.Code, count, stdout, stderr)
	for _, s := range streams {
		s.flush()
	}
	if req.storeHistory() {
		var out *string
		if text, ok := bundle["text/plain"].(string); ok && err == nil {
			out = &text
		}
		k.hist.add(count, req.Code, out)
	}

	if err != nil {
		ename, evalue, traceback := errorFields(err, interrupted)
		if !req.Silent {
			k.publish(m, "error", map[string]any{"ename": ename, "evalue": evalue, "traceback": traceback})
		}
		// Abort before replying: a client that sends its next cell as soon
		// as it sees this reply must not have that cell aborted (it was
		// flaky when the abort came after the reply).
		if req.stopOnError() {
			k.abortQueued()
		}
		k.reply(k.shell, m, "execute_reply", map[string]any{
			"status":          "error",
			"execution_count": count,
			"ename":           ename,
			"evalue":          evalue,
			"traceback":       traceback,
		})
		var restarted SessionRestarter
		if errors.As(err, &restarted) && restarted.SessionRestarted() {
			k.execCount = 0 // the next cell is In [1] of the fresh session
		}
		return
	}
	if bundle != nil && !req.Silent {
		k.publish(m, "execute_result", map[string]any{
			"execution_count": count,
			"data":            bundle,
			"metadata":        map[string]any{},
		})
	}
	k.reply(k.shell, m, "execute_reply", map[string]any{
		"status":           "ok",
		"execution_count":  count,
		"user_expressions": map[string]any{},
		"payload":          payloads,
	})
}

// runCell runs code under a context that interrupt_request and shutdown
// cancel, and that carries the cell's execution count. A panicking
// Executor becomes an error reply instead of a dead kernel. interrupted
// reports whether an interrupt_request hit the cell.
func (k *kernel) runCell(code string, count int, stdout, stderr io.Writer) (bundle MIMEBundle, interrupted bool, err error) {
	ctx, cancel := context.WithCancel(context.WithValue(k.ctx, countKey{}, count))
	k.cellMu.Lock()
	k.cellCtx, k.cellCancel, k.interrupted = ctx, cancel, false
	k.cellMu.Unlock()
	defer func() {
		k.cellMu.Lock()
		interrupted = k.interrupted
		k.cellCtx, k.cellCancel, k.interrupted = nil, nil, false
		k.cellMu.Unlock()
		cancel()
	}()
	defer func() {
		if r := recover(); r != nil {
			bundle, err = nil, &panicError{value: r, stack: string(debug.Stack())}
		}
	}()
	bundle, err = k.exec.Execute(ctx, code, stdout, stderr)
	return bundle, false, err
}

// interruptCell cancels the running cell, if any.
func (k *kernel) interruptCell() {
	k.cellMu.Lock()
	defer k.cellMu.Unlock()
	if k.cellCancel != nil {
		k.cellCancel()
		k.interrupted = true
	}
}

// abortQueued answers the execute requests already queued behind a failed
// cell with status "aborted" instead of running them, so "Run All" stops at
// the first error as it does with IPython. Other queued requests are
// handled normally.
func (k *kernel) abortQueued() {
	for {
		select {
		case m := <-k.shellQ:
			if m.Header.MsgType != "execute_request" {
				k.dispatch(k.shell, m)
				continue
			}
			k.publishStatus(m, "busy")
			k.reply(k.shell, m, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.execCount})
			k.publishStatus(m, "idle")
		default:
			return
		}
	}
}

// errorFields returns the ename, evalue and traceback for err. Errors that
// implement ErrorDetail describe themselves; a cancellation caused by an
// interrupt reads as one.
func errorFields(err error, interrupted bool) (ename, evalue string, traceback []string) {
	var d ErrorDetail
	if errors.As(err, &d) {
		ename, evalue, traceback = d.ErrorName(), d.Error(), d.Traceback()
	} else if interrupted && errors.Is(err, context.Canceled) {
		ename, evalue = "Interrupted", "execution interrupted"
	} else {
		ename, evalue = "Error", err.Error()
	}
	if ename == "" {
		ename = "Error"
	}
	if traceback == nil {
		// Frontends render only the traceback, so it must carry the message.
		traceback = []string{evalue}
	}
	return ename, evalue, traceback
}

// panicError reports a panic inside Executor.Execute.
type panicError struct {
	value any
	stack string
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// ErrorName implements ErrorDetail.
func (e *panicError) ErrorName() string { return "Panic" }

// Traceback implements ErrorDetail: the message, then the Go stack.
func (e *panicError) Traceback() []string {
	return append([]string{e.Error()}, strings.Split(strings.TrimRight(e.stack, "\n"), "\n")...)
}

type countKey struct{}

// ExecutionCount returns the execution count of the cell whose Execute
// received ctx (the In[N] the notebook shows), for the Executor to name
// the cell in messages; ok is false outside the kernel.
func ExecutionCount(ctx context.Context) (n int, ok bool) {
	n, ok = ctx.Value(countKey{}).(int)
	return n, ok
}
