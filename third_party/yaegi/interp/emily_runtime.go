package interp

// runtimeError is a panic value of the interpreter that reads as the Go
// runtime's own: it implements runtime.Error, and its message is the
// runtime's ("runtime error: index out of range [5] with length 3"), so
// that a program which recovers it, or prints it, sees what `go run`
// shows. emily patches 13 and 14.
type runtimeError string

func (e runtimeError) Error() string { return "runtime error: " + string(e) }

// RuntimeError marks runtimeError as a runtime.Error.
func (runtimeError) RuntimeError() {}
