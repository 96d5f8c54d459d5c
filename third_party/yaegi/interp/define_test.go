package interp_test

import (
	"bytes"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestGlobalDefineFromBinaryFuncValue: in one REPL input, a variable
// holding a binary (compiled) function, then a multi-value define from a
// call of it. GTA took the callee for an interpreted function and the
// define copied empty slots over the results (emily patch 101).
func TestGlobalDefineFromBinaryFuncValue(t *testing.T) {
	for _, src := range []string{
		"two := reflect.ValueOf(func() (*bytes.Buffer, error) { return bytes.NewBufferString(\"a\"), nil }).Interface().(func() (*bytes.Buffer, error))\na, b := two()\nfmt.Println(a == nil, a.String(), b)",
		"cut := reflect.ValueOf(strings.Cut).Interface().(func(string, string) (string, string, bool))\na, b, ok := cut(\"k=v\", \"=\")\nfmt.Println(a, b, ok)",
	} {
		var out bytes.Buffer
		i := interp.New(interp.Options{Stdout: &out})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval(`import ("bytes"; "fmt"; "reflect"; "strings")`); err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		want := map[bool]string{true: "false a <nil>\n", false: "k v true\n"}[bytes.Contains([]byte(src), []byte("two"))]
		if out.String() != want {
			t.Errorf("%s\nprinted %q, want %q", src, out.String(), want)
		}
	}
}
