#include "textflag.h"

// func getg() uintptr: the current g, kept in thread-local storage (ABI0).
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
