package interp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// asker is a cell stdout that answers input requests from a script of
// lines, as the kernel answers them from input_reply messages.
type asker struct {
	bytes.Buffer
	mu    sync.Mutex
	lines []string
	asked int
	block bool // wait for the cell's context instead
}

func (a *asker) RequestInput(ctx context.Context, prompt string, password bool) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked++
	if a.block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	if len(a.lines) == 0 {
		return "", io.EOF
	}
	l := a.lines[0]
	a.lines = a.lines[1:]
	return l, nil
}

func TestStdinAsksTheFrontEnd(t *testing.T) {
	s, _ := newSession(t)
	out := &asker{lines: []string{"Emily", "3 4", "a line of text"}}
	var errOut bytes.Buffer
	code := `import ("bufio"; "os")
var name string
fmt.Print("Name: ")
fmt.Scanln(&name)
var a, b int
fmt.Scan(&a, &b)
line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
fmt.Printf("hello %s, %d, %q\n", name, a+b, line)`
	if _, err := s.Execute(context.Background(), code, out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if want := "Name: hello Emily, 7, \"a line of text\\n\""; !strings.Contains(out.String(), want) {
		t.Errorf("output %q; want %q", out.String(), want)
	}
	if out.asked != 3 {
		t.Errorf("asked %d times, want 3", out.asked)
	}
	// No front end to ask (allow_stdin false): reads see EOF.
	out2 := &asker{}
	res, err := s.Execute(context.Background(), "n, err := fmt.Scanln(&name)\nfmt.Sprint(n, err)", out2, &errOut)
	if err != nil || res.Text != `"0 EOF"` {
		t.Errorf("read without input: %v %q", err, res.Text)
	}
}

func TestStdinWaitIsInterruptible(t *testing.T) {
	s, _ := newSession(t)
	out := &asker{block: true}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := s.Execute(ctx, "var v string\nfmt.Scanln(&v)\nfor {}", out, io.Discard)
	var e *Error
	if !errors.As(err, &e) || e.Name != Interrupted {
		t.Fatalf("want Interrupted, got %v", err)
	}
}
