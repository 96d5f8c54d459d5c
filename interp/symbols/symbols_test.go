package symbols

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/traefik/yaegi/extract"
)

// TestUpToDate fails when the generated symbol files no longer match the
// packages: run `go generate ./interp/symbols` after changing the API of
// emily or compiler.
func TestUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks emily from source (~30 s)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		// A test binary carried to a machine with no Go toolchain (the GPU
		// run): the check is about the source, and make check-generated
		// runs it wherever the code is built.
		t.Skip("needs the Go toolchain (go list) to type-check emily from source")
	}
	for pkg, file := range map[string]string{
		"github.com/emily-go/emily":                       "github_com-emily-go-emily.go",
		"github.com/emily-go/emily/compiler":              "github_com-emily-go-emily-compiler.go",
		"github.com/emily-go/emily/display":               "github_com-emily-go-emily-display.go",
		"github.com/emily-go/emily/plot":                  "github_com-emily-go-emily-plot.go",
		"github.com/emily-go/emily/models/bert":           "github_com-emily-go-emily-models-bert.go",
		"github.com/emily-go/emily/models/bert/wordpiece": "github_com-emily-go-emily-models-bert-wordpiece.go",
		"github.com/emily-go/emily/models/sample":         "github_com-emily-go-emily-models-sample.go",
		"github.com/emily-go/emily/models/llama":          "github_com-emily-go-emily-models-llama.go",
		"github.com/emily-go/emily/models/llama/bpe":      "github_com-emily-go-emily-models-llama-bpe.go",
		"github.com/emily-go/emily/models/llama/chat":     "github_com-emily-go-emily-models-llama-chat.go",
		"github.com/emily-go/emily/nn":                    "github_com-emily-go-emily-nn.go",
		"github.com/emily-go/emily/optim":                 "github_com-emily-go-emily-optim.go",
		"github.com/emily-go/emily/display/progress":      "github_com-emily-go-emily-display-progress.go",
		"github.com/emily-go/emily/data":                  "github_com-emily-go-emily-data.go",
		"github.com/emily-go/emily/serving":               "github_com-emily-go-emily-serving.go",
		"github.com/emily-go/emily/serving/llamaserve":    "github_com-emily-go-emily-serving-llamaserve.go",
		"github.com/emily-go/emily/distributed":           "github_com-emily-go-emily-distributed.go",
	} {
		// As `yaegi extract` does in this directory.
		ext := extract.Extractor{Dest: "symbols"}
		var buf bytes.Buffer
		if _, err := ext.Extract(pkg, "symbols", &buf); err != nil {
			t.Fatalf("extracting %s: %v", pkg, err)
		}
		have, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, buf.Bytes()) {
			t.Errorf("%s is stale: run go generate ./interp/symbols", file)
		}
	}
}

// TestSymbols checks the tables hold what interpreted code needs.
func TestSymbols(t *testing.T) {
	emily := Symbols["github.com/emily-go/emily/emily"]
	for _, name := range []string{"Tensor", "DType", "Option", "Float32", "Arange", "Jit", "CompileNamed", "WithNative", "Error"} {
		if !emily[name].IsValid() {
			t.Errorf("emily.%s missing", name)
		}
	}
	if !Symbols["github.com/emily-go/emily/compiler/compiler"]["ParseOptions"].IsValid() {
		t.Error("compiler.ParseOptions missing")
	}
}
