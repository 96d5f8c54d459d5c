package opspec

var compareOps = []Op{}
