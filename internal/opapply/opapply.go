// Package opapply hands the root package's op application to the other
// packages of this module whose ops the op spec declares (distributed):
// their generated functions apply ops exactly as the root package's do
// (eagerly, or recorded in a trace), without the root package exporting
// that machinery. It holds the function as any, since it cannot import
// the root package that defines its type.
package opapply

// ApplyMulti is the root package's applyMulti, a
// func(name string, op ir.Op, attrs ir.Attrs, xs ...*emily.Tensor) []*emily.Tensor,
// set by the root package when it initializes.
var ApplyMulti any
