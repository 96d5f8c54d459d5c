package opspec

var scanOps = []Op{}
