package plot

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

func TestFigurePNGSize(t *testing.T) {
	x := emily.Arange(20)
	for name, f := range map[string]*Figure{
		"line":    Line(x),
		"xy":      XY(x, emily.Mul(x, x)),
		"scatter": Scatter(x, emily.Mul(x, x)).Title("squares").Labels("x", "x²"),
		"hist":    Hist(x, 0).Size(300, 150),
	} {
		data, err := f.PNG()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := img.Bounds().Size(); got.X != f.w || got.Y != f.h {
			t.Errorf("%s: image is %v, want %dx%d", name, got, f.w, f.h)
		}
	}
}

func TestErrorsNameShapeAndFix(t *testing.T) {
	defer func() {
		err, _ := recover().(error)
		if err == nil || !strings.Contains(err.Error(), "plot.Line") || !strings.Contains(err.Error(), "[2 3]") || !strings.Contains(err.Error(), "Reshape(6)") {
			t.Fatalf("error = %v", err)
		}
	}()
	Line(emily.Arange(6).Reshape(2, 3))
}
