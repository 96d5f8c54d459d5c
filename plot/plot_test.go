package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestFigurePNGSize(t *testing.T) {
	x := emily.Arange(20)
	for name, f := range map[string]*Figure{
		"line":    Line(x),
		"xy":      XY(x, emily.Mul(x, x)),
		"scatter": Scatter(x, emily.Mul(x, x)).Title("squares").Labels("x", "x²"),
		"hist":    Hist(x, 0).Size(300, 150),
	} {
		if got := renderPNG(t, name, f).Bounds().Size(); got.X != f.w || got.Y != f.h {
			t.Errorf("%s: image is %v, want %dx%d", name, got, f.w, f.h)
		}
	}
}

// renderPNG draws f as PNG and decodes it, failing the test on any error.
func renderPNG(t *testing.T, what string, f *Figure) image.Image {
	t.Helper()
	data, err := f.PNG()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return img
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

func TestHeatmapPNGSize(t *testing.T) {
	m := emily.Arange(12).Reshape(3, 4)
	for name, f := range map[string]*Figure{
		"plain":    Heatmap(m),
		"labelled": Heatmap(m).RowLabels("a", "b", "a sentence far longer than thirty-two characters").ColLabels("w", "x", "y", "z").Title("m").Size(500, 300),
		"one cell": Heatmap(emily.Full(7, 1, 1)).Size(200, 100), // one value, and too narrow for a colour bar
		"big":      Heatmap(emily.Arange(120*90).Reshape(120, 90)),
	} {
		if got := renderPNG(t, name, f).Bounds().Size(); got.X != f.w || got.Y != f.h {
			t.Errorf("%s: image is %v, want %dx%d", name, got, f.w, f.h)
		}
	}
}

// pixel returns the colour drawn at the centre of cell (row, col) of a
// heat map with rows×cols cells, as the PNG shows it.
func pixel(t *testing.T, f *Figure, img image.Image, rows, cols, row, col int) color.NRGBA {
	t.Helper()
	w, h := vg.Length(f.w)*vg.Inch/dpi, vg.Length(f.h)*vg.Inch/dpi
	main, _, _ := f.layout(draw.New(vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))))
	dc := f.p.DataCanvas(main)
	x := dc.Min.X + (dc.Max.X-dc.Min.X)*vg.Length((float64(col)+0.5)/float64(cols))
	y := dc.Max.Y - (dc.Max.Y-dc.Min.Y)*vg.Length((float64(row)+0.5)/float64(rows))
	return color.NRGBAModel.Convert(img.At(int(x.Dots(dpi)), int((h - y).Dots(dpi)))).(color.NRGBA)
}

func TestHeatmapDrawsRowZeroOnTopInViridis(t *testing.T) {
	nan := float32(math.NaN())
	f := Heatmap(emily.FromSlice([]float32{0, 1, 2, nan, 2, 0}, 2, 3))
	img := renderPNG(t, "heat map", f)
	near := func(c color.NRGBA, want color.Color) bool {
		w := color.NRGBAModel.Convert(want).(color.NRGBA)
		d := func(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
		return d(c.R, w.R) <= 3 && d(c.G, w.G) <= 3 && d(c.B, w.B) <= 3
	}
	low, high := viridis[0], viridis[len(viridis)-1]
	for _, c := range []struct {
		row, col int
		want     color.Color
	}{{0, 0, low}, {0, 2, high}, {1, 0, color.Gray{0xc0}}, {1, 1, high}, {1, 2, low}} {
		if got := pixel(t, f, img, 2, 3, c.row, c.col); !near(got, c.want) {
			t.Errorf("cell (%d, %d) is %v, want %v", c.row, c.col, got, c.want)
		}
	}
	if got := pixel(t, f, img, 2, 3, 0, 1); near(got, low) || near(got, high) {
		t.Errorf("cell (0, 1), the middle value, is %v, an end of the scale", got)
	}

	// With the scale fixed to [0, 1], 1 is its top and 2 beyond it.
	f = Heatmap(emily.FromSlice([]float32{0, 1, 2, nan, 2, 0}, 2, 3)).ColorRange(0, 1)
	img = renderPNG(t, "heat map with ColorRange(0, 1)", f)
	for _, c := range [][2]int{{0, 1}, {0, 2}, {1, 1}} {
		if got := pixel(t, f, img, 2, 3, c[0], c[1]); !near(got, high) {
			t.Errorf("ColorRange(0, 1): cell %v is %v, want the top colour %v", c, got, high)
		}
	}
	if bar := f.heat.bar(); bar.Y.Min != 0 || bar.Y.Max != 1 {
		t.Errorf("ColorRange(0, 1): the colour bar spans [%v, %v]", bar.Y.Min, bar.Y.Max)
	}
}

func TestHeatmapErrorsNameShapeAndFix(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   func()
		want []string
	}{
		{"1-D", func() { Heatmap(emily.Arange(6)) }, []string{"plot.Heatmap", "[6]", "Reshape(1, 6)"}},
		{"3-D", func() { Heatmap(emily.Arange(24).Reshape(2, 3, 4)) }, []string{"plot.Heatmap", "[2 3 4]", "Reshape(6, 4)"}},
		{"empty", func() { Heatmap(emily.Zeros(0, 3)) }, []string{"plot.Heatmap", "[0 3]", "at least one row"}},
		{"rows", func() { Heatmap(emily.Arange(6).Reshape(2, 3)).RowLabels("a") }, []string{"plot.RowLabels", "1 labels for 2 rows"}},
		{"cols", func() { Heatmap(emily.Arange(6).Reshape(2, 3)).ColLabels("a", "b") }, []string{"plot.ColLabels", "2 labels for 3 columns"}},
		{"line", func() { Line(emily.Arange(3)).RowLabels("a", "b", "c") }, []string{"plot.RowLabels", "only a heat map", "plot.Heatmap"}},
		{"range", func() { Heatmap(emily.Arange(6).Reshape(2, 3)).ColorRange(1, 1) }, []string{"plot.ColorRange(1, 1)", "min < max"}},
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				for _, w := range c.want {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("%s: error = %v, want it to mention %q", c.name, err, w)
					}
				}
			}()
			c.fn()
		}()
	}
}

func TestSaveByExtension(t *testing.T) {
	dir := t.TempDir()
	f := Heatmap(emily.Arange(6).Reshape(2, 3)).RowLabels("a", "b")
	for _, name := range []string{"m.png", "m.svg", "m.pdf"} {
		path := filepath.Join(dir, name)
		if err := f.Save(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 100 {
			t.Fatalf("%s: %d bytes, %v", name, len(data), err)
		}
	}
	img, err := png.Decode(bytes.NewReader(must2(os.ReadFile(filepath.Join(dir, "m.png")))))
	if err != nil || img.Bounds().Dx() != 640 {
		t.Errorf("m.png: %v, %v", img.Bounds(), err)
	}
	if svg := string(must2(os.ReadFile(filepath.Join(dir, "m.svg")))); !strings.Contains(svg, "<svg") || !strings.Contains(svg, "<image") {
		t.Errorf("m.svg has no <svg> or no <image> of the cells")
	}
	if err := f.Save(filepath.Join(dir, "m.bmp")); err == nil || !strings.Contains(err.Error(), ".svg") {
		t.Errorf("saving a .bmp: %v, want an error naming the formats", err)
	}
}

func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
