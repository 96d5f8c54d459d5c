package opspec

var logicalOps = []Op{}
