package opspec

var sortOps = []Op{}
