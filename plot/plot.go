// Package plot draws tensors in one call: Line, XY, Scatter, Hist and
// Heatmap return
// a *Figure, which a notebook shows inline as a PNG image and a terminal
// as the path of a saved PNG file. Drawing is gonum.org/v1/plot's, the
// maintained pure-Go plotting library (no cgo, no system fonts needed).
package plot

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/display"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure is a plot ready to show, save or refine (Title, Labels, Size).
type Figure struct {
	p    *gplot.Plot
	w, h int   // pixels
	heat *heat // set for a heat map
}

// dpi is the resolution of the PNG: 96, a screen's, so that a Figure of
// 640×480 pixels shows at that size in a notebook.
const dpi = 96

func newFigure() *Figure {
	return &Figure{p: gplot.New(), w: 640, h: 480}
}

// values returns the values of a 1-D tensor as float64s, or panics with
// an error that names the op, the shape and the fix.
func values(op, arg string, t *emily.Tensor) plotter.Values {
	if t == nil {
		panic(fmt.Errorf("plot.%s: %s is a nil tensor", op, arg))
	}
	if t.Rank() != 1 {
		panic(fmt.Errorf("plot.%s: %s has shape %v; it needs one axis: plot a row (t.Slice…) or flatten it with t.Reshape(%d)", op, arg, t.Shape(), t.Size()))
	}
	return plotter.Values(t.ToFloat64s())
}

func xys(op string, x, y *emily.Tensor) plotter.XYs {
	xs, ys := values(op, "x", x), values(op, "y", y)
	if len(xs) != len(ys) {
		panic(fmt.Errorf("plot.%s: x has %d values and y %d; they pair up, so give both the same length", op, len(xs), len(ys)))
	}
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i].X, pts[i].Y = xs[i], ys[i]
	}
	return pts
}

func must(op string, err error) {
	if err != nil {
		panic(fmt.Errorf("plot.%s: %v", op, err))
	}
}

// Line draws each 1-D tensor as a line against its index (0, 1, …), one
// colour per tensor, with a legend when there are several.
func Line(ys ...*emily.Tensor) *Figure {
	f := newFigure()
	if len(ys) == 0 {
		panic(fmt.Errorf("plot.Line: no tensors given; e.g. plot.Line(y) or plot.Line(y1, y2)"))
	}
	var args []any
	for i, y := range ys {
		vs := values("Line", fmt.Sprintf("tensor %d", i), y)
		pts := make(plotter.XYs, len(vs))
		for j, v := range vs {
			pts[j].X, pts[j].Y = float64(j), v
		}
		if len(ys) > 1 {
			args = append(args, fmt.Sprint(i))
		}
		args = append(args, pts)
	}
	must("Line", plotutil.AddLines(f.p, args...))
	return f
}

// XY draws y against x as a line.
func XY(x, y *emily.Tensor) *Figure {
	f := newFigure()
	must("XY", plotutil.AddLines(f.p, xys("XY", x, y)))
	return f
}

// Scatter draws the points (x[i], y[i]).
func Scatter(x, y *emily.Tensor) *Figure {
	f := newFigure()
	s, err := plotter.NewScatter(xys("Scatter", x, y))
	must("Scatter", err)
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	s.GlyphStyle.Color = plotutil.Color(0)
	f.p.Add(s)
	return f
}

// Hist draws a histogram of x's values in bins bins (0 picks
// √n, at least 1).
func Hist(x *emily.Tensor, bins int) *Figure {
	f := newFigure()
	vs := values("Hist", "x", x)
	if len(vs) == 0 {
		panic(fmt.Errorf("plot.Hist: x is empty; a histogram needs values"))
	}
	if bins <= 0 {
		for bins = 1; bins*bins < len(vs); bins++ {
		}
	}
	h, err := plotter.NewHist(vs, bins)
	must("Hist", err)
	h.FillColor = plotutil.Color(0)
	f.p.Add(h)
	return f
}

// Title sets the figure's title and returns f.
func (f *Figure) Title(title string) *Figure {
	f.p.Title.Text = title
	return f
}

// Labels sets the axis labels and returns f.
func (f *Figure) Labels(x, y string) *Figure {
	f.p.X.Label.Text, f.p.Y.Label.Text = x, y
	return f
}

// Size sets the image size in pixels (default 640×480) and returns f.
func (f *Figure) Size(width, height int) *Figure {
	if width <= 0 || height <= 0 {
		panic(fmt.Errorf("plot.Size(%d, %d): width and height must be positive pixels, e.g. Size(640, 480)", width, height))
	}
	f.w, f.h = width, height
	return f
}

// PNG renders the figure as a PNG image.
func (f *Figure) PNG() ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(f.w)*vg.Inch/dpi, vg.Length(f.h)*vg.Inch/dpi), vgimg.UseDPI(dpi))
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.Image()); err != nil {
		return nil, fmt.Errorf("plot: encoding the PNG: %v", err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure to path as PNG (or SVG, PDF, EPS by the
// extension, through gonum's Save).
func (f *Figure) Save(path string) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	c, err := draw.NewFormattedCanvas(vg.Length(f.w)*vg.Inch/dpi, vg.Length(f.h)*vg.Inch/dpi, format)
	if err != nil {
		return fmt.Errorf("plot: saving %s: %v; name the file .png, .svg, .pdf, .eps, .jpg or .tiff", path, err)
	}
	f.draw(draw.New(c))
	file, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: saving the figure: %v", err)
	}
	if _, err := c.WriteTo(file); err != nil {
		file.Close()
		return fmt.Errorf("plot: writing %s: %v", path, err)
	}
	return file.Close()
}

// emptyFigure is what a zero Figure (new(plot.Figure)) shows: it has no
// plot to draw, and drawing it would panic.
const emptyFigure = "plot.Figure (empty: make one with plot.Line, plot.XY, plot.Scatter, plot.Hist or plot.Heatmap)"

func (f *Figure) empty() bool { return f.p == nil || f.w <= 0 || f.h <= 0 }

func (f *Figure) object() *display.Object {
	if f.empty() {
		return display.Markdown(emptyFigure)
	}
	data, err := f.PNG()
	if err != nil {
		return display.HTML("<pre>" + err.Error() + "</pre>")
	}
	o, err := display.PNG(data)
	if err != nil {
		return display.HTML("<pre>" + err.Error() + "</pre>")
	}
	return o
}

// MIMEBundle implements display.Displayer: the figure as image/png.
func (f *Figure) MIMEBundle() map[string]any { return f.object().MIMEBundle() }

// String is what a terminal shows: the figure saved as a PNG file.
func (f *Figure) String() string {
	if f.empty() {
		return emptyFigure
	}
	file, err := os.CreateTemp("", "emily-plot-*.png")
	if err != nil {
		return "plot: cannot save the figure: " + err.Error()
	}
	name := file.Name()
	file.Close()
	data, err := f.PNG()
	if err == nil {
		err = os.WriteFile(name, data, 0o644)
	}
	if err != nil {
		return "plot: cannot save the figure: " + err.Error()
	}
	return fmt.Sprintf("%d×%d plot saved to %s", f.w, f.h, name)
}
