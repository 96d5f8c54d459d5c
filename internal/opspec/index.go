package opspec

var indexOps = []Op{}
