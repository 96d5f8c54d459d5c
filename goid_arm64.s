#include "textflag.h"

// func getg() uintptr: the current g, kept in the g register.
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
