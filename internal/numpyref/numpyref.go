// Package numpyref runs NumPy references for tests: the inputs go to the
// project's Python (.venv, made by make setup, which installs NumPy for the
// op checks) with a few lines of NumPy that set out[name].
package numpyref

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/emily-go/emily"
)

const numpyMain = `
import json, sys, math
import numpy as np
d = json.load(sys.stdin)
env = {"np": np, "math": math}
for k, v in d["inputs"].items():
    env[k] = np.array(v["data"], dtype=v["dtype"]).reshape(v["shape"])
env["out"] = {}
exec(d["code"], env)
print(json.dumps({k: np.asarray(v, dtype=np.float64).ravel().tolist() for k, v in env["out"].items()}))
`

func python(t testing.TB) string {
	t.Helper()
	dir, _ := os.Getwd()
	for ; dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ".venv", "bin", "python")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no .venv/bin/python above the package: run make setup (the NumPy references need it)")
	return ""
}

// Run runs code with inputs bound to NumPy arrays (float64, or int64 for
// integer tensors) and returns out's arrays, flattened.
func Run(t testing.TB, code string, inputs map[string]*emily.Tensor) map[string][]float64 {
	t.Helper()
	type arr struct {
		Shape []int     `json:"shape"`
		Data  []float64 `json:"data"`
		DType string    `json:"dtype"`
	}
	in := map[string]arr{}
	for k, v := range inputs {
		dt := "float64"
		if v.DType() != emily.Float32 && v.DType() != emily.Float64 {
			dt = "int64"
		}
		in[k] = arr{Shape: v.Shape(), Data: v.ToFloat64s(), DType: dt}
	}
	body, err := json.Marshal(map[string]any{"inputs": in, "code": code})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python(t), "-c", numpyMain)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("numpy reference: %v\n%s", err, stderr.String())
	}
	var res map[string][]float64
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("numpy reference output %q: %v", out, err)
	}
	return res
}

// Close fails t unless got is within tol (relative, absolute below 1) of
// want, element by element.
func Close(t testing.TB, what string, got *emily.Tensor, want []float64, tol float64) {
	t.Helper()
	g := got.ToFloat64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d values (%v), NumPy has %d", what, len(g), got.Shape(), len(want))
	}
	worst, at := 0.0, 0
	for i := range g {
		if d := math.Abs(g[i]-want[i]) / math.Max(1, math.Abs(want[i])); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	if worst > tol || math.IsNaN(worst) {
		t.Errorf("%s: [%d] = %v, NumPy %v (relative error %.3g > %.3g)", what, at, g[at], want[at], worst, tol)
	}
}
