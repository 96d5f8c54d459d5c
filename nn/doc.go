// Package nn holds neural-network layers, losses and initializers over the
// emily API, named after mlx.nn's where Go allows: nn.NewLinear(key, in,
// out), (*nn.Linear).Forward(x), nn.CrossEntropy(logits, labels).
//
// A model is any parameter tree (emily's tree.go): a struct of layers,
// slices or maps of them, at any depth. A layer is a struct whose exported
// *emily.Tensor fields are its parameters, named as mlx.nn names them
// ("weight", "bias"), so a model's leaf names ("layers.0.weight") match a
// checkpoint written by mlx.nn. Layers with random initial values take an
// emily.Key (emily.Key(seed), split with emily.KeySplit): the same key
// gives the same model, in the REPL and in compiled Go.
//
// Non-tensor fields (a convolution's stride, a Dropout's Training flag)
// are part of a jitted function's signature: changing one retraces.
//
// This package uses only the public emily API (DESIGN.md decision 12).
package nn
