package opspec

var randomOps = []Op{}
