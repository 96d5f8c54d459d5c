// Package optim holds optimizers (SGD, Adam, AdamW, Lion, Adafactor),
// learning-rate schedules, gradient clipping and a jitted train step, over
// parameter trees (emily's tree.go) and the emily API only (DESIGN.md
// decision 12).
//
// Each optimizer computes what mlx.optimizers computes, with its defaults:
// opt.Update(model, grads) replaces the model's trainable leaves in place
// (model is a pointer to the tree) and keeps the optimizer's state in
// exported fields, so the optimizer is a tree too: a jitted step takes it
// and returns it, and nn.Save writes it. The state is keyed by the
// parameters' tree names ("m.layers.0.weight"); Step counts updates as an
// int32 tensor, so a schedule changes nothing a jitted step was traced
// with.
package optim
