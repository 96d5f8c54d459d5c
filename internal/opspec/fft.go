package opspec

var fftOps = []Op{}
