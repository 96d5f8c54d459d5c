package opspec

var nnOps = []Op{}
