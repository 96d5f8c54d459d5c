package optim_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
	"github.com/emily-go/emily/optim"
)

// A run resumed from a checkpoint is bit-identical to one that did not
// stop: the model, the optimizer's moments and step, and the Dropout keys
// are all in the file.
func TestCheckpointResumeIsBitIdentical(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.safetensors")
	run := func(m *mlp, o *optim.Adam, from, to int, save int) {
		step := optim.NewTrainStep(m, o, mlpLoss)
		for i := from; i < to; i++ {
			x, y := batch(200 + i)
			step.Step(x, y)
			if i+1 == save {
				if err := nn.Save(path, &nn.Checkpoint{Model: m, Optimizer: o, Metadata: map[string]string{"note": "half"}}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	full, fullOpt := newMLP(), newAdam()
	run(full, fullOpt, 0, 10, 5)

	// A fresh model with other initial values and an optimizer with no
	// state yet: Load must fill both.
	m, o := &mlp{L1: nn.NewLinear(emily.Key(99), 4, 16), Drop: nn.NewDropout(emily.Key(98), 0.1), L2: nn.NewLinear(emily.Key(97), 16, 3)}, newAdam()
	ck := &nn.Checkpoint{Model: m, Optimizer: o}
	if err := nn.Load(path, ck); err != nil {
		t.Fatal(err)
	}
	if ck.Metadata["note"] != "half" || ck.Metadata["optimizer.step"] != "5" || !strings.Contains(ck.Metadata["optimizer.schedule"], "cosine_decay") {
		t.Errorf("metadata %v", ck.Metadata)
	}
	run(m, o, 5, 10, -1)
	a, b := emily.TreeLeaves(&nn.Checkpoint{Model: full, Optimizer: fullOpt}), emily.TreeLeaves(ck)
	if len(a) != len(b) {
		t.Fatalf("%d leaves vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !slices.Equal(a[i].Tensor.Bytes(), b[i].Tensor.Bytes()) {
			t.Errorf("%s differs between the resumed run and the full one", a[i].Name)
		}
	}
}

func TestCheckpointErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	m := newMLP()
	if err := nn.Save(path, m); err != nil {
		t.Fatal(err)
	}
	if got := emily.TreeNames(m); !slices.Equal(got, []string{"l1.weight", "l1.bias", "drop.key", "l2.weight", "l2.bias"}) {
		t.Fatalf("names %v", got)
	}
	// Another shape, a missing layer, an extra one: each named.
	other := &mlp{L1: nn.NewLinear(emily.Key(1), 4, 8), Drop: nn.NewDropout(emily.Key(2), 0.1), L2: nn.NewLinear(emily.Key(3), 8, 3)}
	before := other.L1.Weight
	err := nn.Load(path, other)
	if err == nil || !strings.Contains(err.Error(), `"l1.weight" is float32[16 4] in the file, float32[8 4] in the model`) {
		t.Errorf("misshaped: %v", err)
	}
	if other.L1.Weight != before {
		t.Error("a failed Load changed the model")
	}
	type bigger struct {
		*mlp
		L3 *nn.Linear
	}
	err = nn.Load(path, &bigger{newMLP(), nn.NewLinear(emily.Key(4), 3, 3)})
	if err == nil || !strings.Contains(err.Error(), `"l3.weight" is missing`) {
		t.Errorf("missing: %v", err)
	}
	type smaller struct{ L1 *nn.Linear }
	err = nn.Load(path, &smaller{nn.NewLinear(emily.Key(5), 4, 16)})
	if err == nil || !strings.Contains(err.Error(), `"l2.bias" is in the file but not in the model`) {
		t.Errorf("extra: %v", err)
	}
	// The write is atomic: no temporary file is left beside it.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files after saving: %v", entries)
	}
	if err := nn.Load(filepath.Join(dir, "nope.safetensors"), m); err == nil || !strings.Contains(err.Error(), "nope.safetensors") {
		t.Errorf("no file: %v", err)
	}
}
