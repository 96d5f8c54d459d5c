package interp_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestRecoveredPanicPrintsNothing (PATCHES.md 74): a panic that the
// program recovers, also after a re-panic in a deferred call, leaves
// nothing on stderr, as with go run; one that leaves the program prints
// a line per interpreted frame it unwound, innermost first; and a host
// recovering a panic itself gets those lines from TakePanicFrames.
func TestRecoveredPanicPrintsNothing(t *testing.T) {
	var out, stderr bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	eval := func(src string) error {
		t.Helper()
		_, err := i.Eval(src)
		return err
	}
	if err := eval(`import "fmt"
func inner() {
	defer func() {
		r := recover()
		fmt.Println("inner recovered:", r)
		panic(fmt.Sprint("re-", r))
	}()
	panic("first")
}
func outer() {
	defer func() { fmt.Println("outer recovered:", recover()) }()
	inner()
}
func boom() { var m map[int]int; m[1] = 1 }
func mid() { boom() }`); err != nil {
		t.Fatal(err)
	}
	if err := eval(`outer()`); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "inner recovered: first\nouter recovered: re-first\n" {
		t.Errorf("stdout %q", got)
	}
	if stderr.Len() != 0 {
		t.Errorf("a recovered panic printed %q", stderr.String())
	}
	if err := eval(`mid()`); err == nil || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("mid(): %v", err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "panic: main.boom(...)") || !strings.Contains(lines[1], "panic: main.mid(...)") {
		t.Errorf("a panic out of the program printed %q, want boom's, mid's and the input's frames", stderr.String())
	}
	// A goroutine whose own deferred call reports what it recovers, as the
	// session's goroutines do: the frames it unwound are the host's to take.
	stderr.Reset()
	var frames []string
	if err := i.Use(interp.Exports{"host/host": {"Report": reflect.ValueOf(func(any) { frames = i.TakePanicFrames() })}}); err != nil {
		t.Fatal(err)
	}
	if err := eval(`import "host"
func guarded() { defer func() { host.Report(recover()) }(); mid() }`); err != nil {
		t.Fatal(err)
	}
	if err := eval(`guarded()`); err != nil {
		t.Fatal(err)
	}
	if len(frames) != 2 || !strings.Contains(frames[0], "main.boom") || !strings.Contains(frames[1], "main.mid") || stderr.Len() != 0 {
		t.Errorf("frames taken %q, stderr %q; want boom's and mid's, nothing printed", frames, stderr.String())
	}
}
