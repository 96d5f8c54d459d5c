package emily

import (
	"reflect"
	"runtime"
	"testing"
	"time"
)

func namedLoss(x *Tensor) *Tensor { return Sum(x) }

// TestMadeFuncNames: functions Grad and Jit make are named after the
// user's function, and their entries go when they are collected.
func TestMadeFuncNames(t *testing.T) {
	count := func() int {
		n := 0
		madeFuncs.Range(func(any, any) bool { n++; return true })
		return n
	}
	g := Grad(namedLoss)
	if got := funcName(reflect.ValueOf(g)); got != "Grad(emily.namedLoss)" {
		t.Errorf("funcName(Grad(namedLoss)) = %q", got)
	}
	if got := funcName(reflect.ValueOf(ValueAndGrad(Jit(namedLoss)))); got != "ValueAndGrad(emily.namedLoss)" {
		t.Errorf("funcName(ValueAndGrad(Jit(namedLoss))) = %q", got)
	}
	before := count()
	for range 200 {
		Grad(namedLoss)
	}
	if count() < before+200 {
		t.Fatalf("%d entries after making 200 functions, %d before", count(), before)
	}
	deadline := time.Now().Add(10 * time.Second)
	for count() > before+100 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := count(); n > before+100 {
		t.Errorf("%d entries remain after the 200 functions were collected (%d before)", n, before)
	}
	runtime.KeepAlive(g)
}
