package logo

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// The committed files in kernel/logo are what this package draws: run
// `go generate ./kernel/` after changing a shape.
func TestCommittedLogosAreCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "logo")
	svg, err := os.ReadFile(filepath.Join(dir, "logo-svg.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(svg, SVG()) {
		t.Errorf("kernel/logo/logo-svg.svg is stale: run go generate ./kernel/")
	}
	for _, px := range []int{32, 64} {
		name := fmt.Sprintf("logo-%dx%d.png", px, px)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := img.Bounds().Size(); got.X != px || got.Y != px {
			t.Fatalf("%s is %v, want %d×%d", name, got, px, px)
		}
		// Pixels, not bytes: another Go release may compress differently.
		want := Image(px)
		for y := 0; y < px; y++ {
			for x := 0; x < px; x++ {
				if gr, gg, gb, ga := img.At(x, y).RGBA(); [4]uint32{gr, gg, gb, ga} != rgba(want.At(x, y).RGBA()) {
					t.Fatalf("%s is stale at (%d,%d): run go generate ./kernel/", name, x, y)
				}
			}
		}
	}
}

func rgba(r, g, b, a uint32) [4]uint32 { return [4]uint32{r, g, b, a} }

// The picture is the one described: transparent corners, the blue
// ground, white E cells, faint off cells.
func TestLogoPixels(t *testing.T) {
	img := Image(64)
	if a := img.NRGBAAt(0, 0).A; a != 0 {
		t.Errorf("corner alpha %d, want transparent", a)
	}
	if c := img.NRGBAAt(32, 4); c.A != 255 || c.B < 0xC0 || c.R > 0x10 {
		t.Errorf("ground %v, want opaque Go blue", c)
	}
	// Centre of the top-left E cell (row 0, column 1) and of an off cell
	// (row 1, column 3).
	on, off := img.NRGBAAt(22, 13), img.NRGBAAt(41, 22)
	if on != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("E cell %v, want white", on)
	}
	if off.R < 0x30 || off.R > 0xB0 || off.A != 255 {
		t.Errorf("off cell %v, want a faint white over the blue", off)
	}
}
