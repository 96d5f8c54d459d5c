package nn

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/emily-go/emily"
)

// Checkpoint is what a training run saves to resume: the model and the
// optimizer (its state is a tree too), named "model.…" and "optimizer.…"
// in the file. Metadata is written beside them as strings; the
// optimizer's own (its step and schedule, from a Metadata method such as
// optim's) is added under "optimizer.".
//
//	nn.Save("run.safetensors", &nn.Checkpoint{Model: model, Optimizer: opt})
type Checkpoint struct {
	Model     any               `emily:"model"`
	Optimizer any               `emily:"optimizer"`
	Metadata  map[string]string `emily:"-"`
}

// Save writes model (any tree: a model, or a *Checkpoint) to path in the
// safetensors format, one tensor per leaf under its tree name, atomically
// (a crash leaves the old file or the new one, never half of one).
func Save(path string, model any) error {
	return emily.Try(func() {
		leaves := emily.TreeLeaves(model)
		if len(leaves) == 0 {
			panic(&emily.Error{Op: "nn.Save", Err: fmt.Errorf("%s: %T has no tensor leaves", path, model)})
		}
		tensors := make(map[string]*emily.Tensor, len(leaves))
		for _, l := range leaves {
			tensors[l.Name] = l.Tensor
		}
		emily.SaveSafetensors(path, tensors, metadataOf(model))
	})
}

// metadataOf collects a checkpoint's metadata.
func metadataOf(model any) map[string]string {
	c, ok := model.(*Checkpoint)
	if !ok {
		return nil
	}
	meta := map[string]string{}
	for k, v := range c.Metadata {
		meta[k] = v
	}
	if m, ok := c.Optimizer.(interface{ Metadata() map[string]string }); ok {
		for k, v := range m.Metadata() {
			meta["optimizer."+k] = v
		}
	}
	return meta
}

// Load reads path into model's leaves in place (model as for Save; a
// pointer). Every leaf must be in the file with its shape and dtype, and
// the file must hold nothing else: an error names each missing, misshaped
// or unexpected tensor, and model is left unchanged. A *Checkpoint's
// optimizer state is made first (its Init) so that its leaves exist, and
// its Metadata is set from the file.
func Load(path string, model any) error {
	return emily.Try(func() {
		if c, ok := model.(*Checkpoint); ok {
			if o, ok := c.Optimizer.(interface{ Init(any) }); ok {
				o.Init(c.Model)
			}
		}
		tensors, meta := emily.LoadSafetensors(path)
		leaves := emily.TreeLeaves(model)
		var problems []string
		out := make([]*emily.Tensor, len(leaves))
		seen := map[string]bool{}
		for i, l := range leaves {
			seen[l.Name] = true
			t, ok := tensors[l.Name]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%q is missing (want %s%v)", l.Name, l.Tensor.DType(), l.Tensor.Shape()))
			case !slices.Equal(t.Shape(), l.Tensor.Shape()) || t.DType() != l.Tensor.DType():
				problems = append(problems, fmt.Sprintf("%q is %s%v in the file, %s%v in the model", l.Name, t.DType(), t.Shape(), l.Tensor.DType(), l.Tensor.Shape()))
			}
			out[i] = t
		}
		var extra []string
		for name := range tensors {
			if !seen[name] {
				extra = append(extra, name)
			}
		}
		sort.Strings(extra)
		for _, name := range extra {
			problems = append(problems, fmt.Sprintf("%q is in the file but not in the model", name))
		}
		if len(problems) > 0 {
			panic(&emily.Error{Op: "nn.Load", Err: fmt.Errorf("%s does not fit %T: %s", path, model, strings.Join(problems, "; ")),
				Hint: "load into a model built with the same layers and sizes as the one saved"})
		}
		emily.SetLeaves(model, out)
		if c, ok := model.(*Checkpoint); ok {
			c.Metadata = meta
		}
	})
}
