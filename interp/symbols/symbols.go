// Package symbols holds the yaegi symbol tables of the packages that
// interpreted code may import: the emily root package, compiler, display,
// plot, the models, nn, optim, data, display/progress, serving and
// distributed.
package symbols

import "reflect"

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract github.com/emily-go/emily github.com/emily-go/emily/compiler github.com/emily-go/emily/display github.com/emily-go/emily/plot github.com/emily-go/emily/models/bert github.com/emily-go/emily/models/bert/wordpiece github.com/emily-go/emily/models/sample github.com/emily-go/emily/models/llama github.com/emily-go/emily/models/llama/bpe github.com/emily-go/emily/models/llama/chat github.com/emily-go/emily/nn github.com/emily-go/emily/optim github.com/emily-go/emily/display/progress github.com/emily-go/emily/data github.com/emily-go/emily/serving github.com/emily-go/emily/serving/llamaserve github.com/emily-go/emily/distributed

// Symbols maps "importpath/pkgname" to the package's exported symbols, in
// the form interp.Use expects.
var Symbols = map[string]map[string]reflect.Value{}
