package llama_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/llama"
)

// tinyVariants runs testdata/tiny_reference.py (the project's .venv
// python, NumPy) into a temporary directory once per test binary.
func tinyVariants(t *testing.T) (dir string, names []string) {
	t.Helper()
	py := filepath.Join("..", "..", ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Skipf("no %s (make test creates it with scripts/setup-venv.sh): %v", py, err)
	}
	dir = t.TempDir()
	if out, err := exec.Command(py, "testdata/tiny_reference.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("tiny_reference.py: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "variants.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &names); err != nil {
		t.Fatal(err)
	}
	return dir, names
}

type tinyRef struct {
	Meta   map[string][2]json.RawMessage `json:"meta"`
	Tokens []int                         `json:"tokens"`
	Logits [][]float32                   `json:"logits"`
}

// writeTiny turns NAME.npz and NAME.json into NAME.gguf with
// emily.SaveGGUF, the metadata typed as llama.cpp writes it.
func writeTiny(t *testing.T, dir, name string) (path string, ref tinyRef) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	meta := map[string]any{}
	for k, tv := range ref.Meta {
		var typ string
		json.Unmarshal(tv[0], &typ)
		switch typ {
		case "str":
			var s string
			json.Unmarshal(tv[1], &s)
			meta[k] = s
		case "u32":
			var n uint32
			json.Unmarshal(tv[1], &n)
			meta[k] = n
		case "f32":
			var f float32
			json.Unmarshal(tv[1], &f)
			meta[k] = f
		default:
			t.Fatalf("%s: metadata %s has type %q", name, k, typ)
		}
	}
	tensors := emily.LoadNPZ(filepath.Join(dir, name+".npz"))
	path = filepath.Join(dir, name+".gguf")
	emily.SaveGGUF(path, tensors, meta)
	return path, ref
}

// TestTinyVariantsMatchNumPy: each variant the package claims (Llama 2,
// Llama 2 with linear rope scaling, Llama 3 with its rope scaling and a
// tied head, TinyLlama's GQA in float16, Qwen2's attention biases and
// NEOX rope) as a random-weight GGUF written with emily.SaveGGUF, scored
// at 40 positions through the KV cache against a float64 NumPy forward in
// Hugging Face's formulation (testdata/tiny_reference.py), in every lane:
// the prompt in chunks of 5 with a cache growing 8 → 16 → 32 → 64, then
// token by token; and in one padded chunk.
func TestTinyVariantsMatchNumPy(t *testing.T) {
	dir, names := tinyVariants(t)
	if len(names) < 5 {
		t.Fatalf("%d variants", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path, ref := writeTiny(t, dir, name)
			m, err := llama.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			c := m.Config()
			t.Logf("%+v", c)
			for _, tc := range []struct {
				lane          llama.Lane
				prompt, chunk int
			}{
				{llama.Native, 12, 5}, {llama.Fuse, 12, 5}, {llama.Evaluator, 12, 5}, {llama.Native, 23, 0},
			} {
				o := llama.Options{Lane: tc.lane, PrefillChunk: tc.chunk, MinCache: 8}
				rows, err := m.Logits(context.Background(), ref.Tokens[:tc.prompt], ref.Tokens[tc.prompt:len(ref.Tokens)-1], o)
				if err != nil {
					t.Fatal(err)
				}
				worst, at := 0.0, 0
				for i, row := range rows {
					want := ref.Logits[tc.prompt-1+i]
					if len(row) != len(want) {
						t.Fatalf("row %d: %d logits, want %d", i, len(row), len(want))
					}
					for j := range row {
						if d := math.Abs(float64(row[j] - want[j])); d > worst {
							worst, at = d, tc.prompt-1+i
						}
					}
				}
				// float32 (float16 weights for tinyllama) against float64:
				// logits are O(1–10).
				if tol := 5e-4; !(worst <= tol) {
					t.Errorf("%s prompt %d chunk %d: largest |Δlogit| %.2e at position %d > %.0e", tc.lane, tc.prompt, tc.chunk, worst, at, tol)
				} else {
					t.Logf("%s prompt %d chunk %d: largest |Δlogit| %.2e over %d positions", tc.lane, tc.prompt, tc.chunk, worst, len(rows))
				}
			}
		})
	}
}

// TestTinyVariantConfigs checks what each variant's metadata says, so a
// variant cannot pass by accident on the wrong path (an untied head read
// as tied, biases not bound, no rope scaling).
func TestTinyVariantConfigs(t *testing.T) {
	dir, _ := tinyVariants(t)
	want := map[string]string{
		"llama2":        "llama heads 4/4 tied=false bias=false traditional=true scale=1 freqs=false",
		"llama2-linear": "llama heads 4/4 tied=false bias=false traditional=true scale=0.25 freqs=false",
		"llama3":        "llama heads 4/2 tied=true bias=false traditional=true scale=1 freqs=true",
		"tinyllama":     "llama heads 8/2 tied=false bias=false traditional=true scale=1 freqs=false",
		"qwen2":         "qwen2 heads 4/2 tied=true bias=true traditional=false scale=1 freqs=false",
	}
	for name, w := range want {
		path, _ := writeTiny(t, dir, name)
		m, err := llama.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Config()
		got := fmt.Sprintf("%s heads %d/%d tied=%v bias=%v traditional=%v scale=%v freqs=%v",
			c.Arch, c.Heads, c.KVHeads, c.TiedEmbeddings, c.AttnBias, c.RopeTraditional, c.RopeScale, c.RopeFreqFactors)
		if got != w {
			t.Errorf("%s: %s, want %s", name, got, w)
		}
	}
}
