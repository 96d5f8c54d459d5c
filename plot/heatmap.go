package plot

import (
	"fmt"
	"image"
	"image/color"
	xdraw "image/draw"
	"math"

	"github.com/emily-go/emily"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// heat is what a heat map's Figure knows beyond its gonum plot: the grid's
// size, for RowLabels and ColLabels, and the colour scale, for ColorRange
// and the colour bar drawn beside the cells.
type heat struct {
	rows, cols int
	cells      *plotter.HeatMap
	scale      palette.ColorMap
}

// bar returns the colour bar as a plot of its own, made when drawn: a
// plot takes its axis range from what is added, and ColorRange may have
// changed the scale since Heatmap.
func (h *heat) bar() *gplot.Plot {
	bar := gplot.New()
	bar.Add(&plotter.ColorBar{ColorMap: h.scale, Vertical: true})
	bar.HideX()
	bar.X.Padding, bar.Y.Padding = 0, 0
	return bar
}

// grid is a 2-D tensor's values as gonum's GridXYZ: column c at x = c and
// row r at y = rows-1-r, so that row 0 is drawn at the top, as a matrix
// is written (and as matplotlib's imshow shows it).
type grid struct {
	z          []float64
	rows, cols int
}

func (g grid) Dims() (c, r int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z[(g.rows-1-r)*g.cols+c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) row(i int) float64  { return float64(g.rows - 1 - i) }
func (g grid) finiteRange() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range g.z {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi, ok = math.Min(lo, v), math.Max(hi, v), true
		}
	}
	return lo, hi, ok
}

// viridis is matplotlib's default colour map at ten control points
// (Smith and van der Walt, CC0): perceptually uniform, readable in grey
// and by most colour-blind readers. moreland.NewLuminance interpolates
// between them in CIELAB.
var viridis = []color.Color{
	color.NRGBA{0x44, 0x01, 0x54, 0xff}, color.NRGBA{0x48, 0x28, 0x78, 0xff},
	color.NRGBA{0x3e, 0x49, 0x89, 0xff}, color.NRGBA{0x31, 0x68, 0x8e, 0xff},
	color.NRGBA{0x26, 0x82, 0x8e, 0xff}, color.NRGBA{0x1f, 0x9e, 0x89, 0xff},
	color.NRGBA{0x35, 0xb7, 0x79, 0xff}, color.NRGBA{0x6e, 0xce, 0x58, 0xff},
	color.NRGBA{0xb5, 0xde, 0x2b, 0xff}, color.NRGBA{0xfd, 0xe7, 0x25, 0xff},
}

// Heatmap draws a 2-D tensor as a grid of coloured cells, row 0 at the
// top, with a colour bar of the value scale on the right (viridis: dark
// is low, yellow is high). Rows and columns are numbered; RowLabels and
// ColLabels name them. NaN cells are grey; ±Inf take the scale's ends.
func Heatmap(t *emily.Tensor) *Figure {
	if t == nil {
		panic(fmt.Errorf("plot.Heatmap: the tensor is nil"))
	}
	shape := t.Shape()
	if len(shape) != 2 {
		fix := "give a matrix (rows, columns)"
		switch {
		case len(shape) < 2:
			fix = fmt.Sprintf("reshape it to one row with t.Reshape(1, %d)", t.Size())
		case shape[0] > 0:
			fix = fmt.Sprintf("pick one matrix (t.Slice…) or merge the leading axes with t.Reshape(%d, %d)", t.Size()/shape[len(shape)-1], shape[len(shape)-1])
		}
		panic(fmt.Errorf("plot.Heatmap: the tensor has shape %v; a heat map needs two axes (rows, columns): %s", shape, fix))
	}
	g := grid{z: t.ToFloat64s(), rows: shape[0], cols: shape[1]}
	if g.rows == 0 || g.cols == 0 {
		panic(fmt.Errorf("plot.Heatmap: the tensor has shape %v, no cells to draw; give at least one row and one column", shape))
	}
	lo, hi, ok := g.finiteRange()
	switch {
	case !ok: // nothing finite: any range; every cell is NaN-grey or an end
		lo, hi = 0, 1
	case lo == hi: // one value: a unit range around it, so the scale exists
		lo, hi = lo-0.5, hi+0.5
	}
	cm, err := moreland.NewLuminance(viridis)
	must("Heatmap", err)
	cm.SetMin(lo)
	cm.SetMax(hi)
	pal := cm.Palette(256)
	colors := pal.Colors()
	h := plotter.NewHeatMap(g, pal)
	h.Min, h.Max = lo, hi
	h.Underflow, h.Overflow = colors[0], colors[len(colors)-1]
	h.NaN = color.Gray{0xc0}

	f := newFigure()
	f.p.Add(cells{h})
	f.p.X.Padding, f.p.Y.Padding = 0, 0
	f.heat = &heat{rows: g.rows, cols: g.cols, cells: h, scale: cm}
	f.p.X.Tick.Marker = indexTicks(g.cols, func(i int) float64 { return float64(i) })
	f.p.Y.Tick.Marker = indexTicks(g.rows, g.row)

	return f
}

// cells draws a HeatMap as one image whose cells are blocks of whole
// pixels. gonum's vector drawing leaves hairline seams between cells
// (each edge is anti-aliased against the white page) and its raster
// drawing scales a one-pixel-per-cell image bilinearly, which blurs the
// cells into each other; an image of about the drawn size scales by
// nearly 1, so cells stay sharp in PNG and SVG alike.
type cells struct{ *plotter.HeatMap }

func (h cells) Plot(c draw.Canvas, plt *gplot.Plot) {
	cols, rows := h.GridXYZ.Dims()
	xmin, xmax, ymin, ymax := h.DataRange()
	trX, trY := plt.Transforms(&c)
	px := func(l vg.Length) int { return int(math.Ceil(math.Abs(l.Dots(dpi)))) }
	kx := max(1, min(4096/cols, (px(trX(xmax)-trX(xmin))+cols-1)/cols))
	ky := max(1, min(4096/rows, (px(trY(ymax)-trY(ymin))+rows-1)/rows))
	img := image.NewNRGBA(image.Rect(0, 0, cols*kx, rows*ky))
	pal := h.Palette.Colors()
	ps := float64(len(pal)-1) / (h.Max - h.Min)
	for i := range cols {
		for j := range rows {
			var col color.Color
			switch v := h.GridXYZ.Z(i, j); {
			case math.IsNaN(v):
				col = h.NaN
			case v < h.Min:
				col = h.Underflow
			case v > h.Max:
				col = h.Overflow
			default:
				col = pal[int((v-h.Min)*ps+0.5)]
			}
			// y = j is drawn from the bottom; the image's rows go down.
			xdraw.Draw(img, image.Rect(i*kx, (rows-1-j)*ky, (i+1)*kx, (rows-j)*ky), image.NewUniform(col), image.Point{}, xdraw.Src)
		}
	}
	plotter.NewImage(img, xmin, ymin, xmax, ymax).Plot(c, plt)
}

// indexTicks numbers n rows or columns at their cell centres, thinned to
// at most about ten labels (every 1, 2, 5, 10, 20, … cells).
func indexTicks(n int, at func(int) float64) gplot.ConstantTicks {
	step := 1
	for k := 0; n/step > 10; k++ {
		step = []int{2, 5, 10}[k%3] * pow10(k/3)
	}
	var ticks []gplot.Tick
	for i := 0; i < n; i += step {
		ticks = append(ticks, gplot.Tick{Value: at(i), Label: fmt.Sprint(i)})
	}
	return ticks
}

func pow10(k int) int {
	p := 1
	for ; k > 0; k-- {
		p *= 10
	}
	return p
}

// maxLabel is the longest label shown in full; a longer one (a sentence,
// say) is cut to it with "…" so the cells keep most of the figure.
const maxLabel = 32

func shorten(s string) string {
	r := []rune(s)
	if len(r) <= maxLabel {
		return s
	}
	return string(r[:maxLabel-1]) + "…"
}

// labelled checks that f is a heat map with n rows or columns (what) and
// that labels names each of them; it returns the ticks for them.
func (f *Figure) labelled(op, what string, n func(*heat) int, at func(int) float64, labels []string) gplot.ConstantTicks {
	if f.heat == nil {
		panic(fmt.Errorf("plot.%s: only a heat map has %s; make the figure with plot.Heatmap, or name axes with Labels", op, what))
	}
	if len(labels) != n(f.heat) {
		panic(fmt.Errorf("plot.%s: %d labels for %d %s; give one label per %s", op, len(labels), n(f.heat), what, what[:len(what)-1]))
	}
	ticks := make([]gplot.Tick, len(labels))
	for i, l := range labels {
		ticks[i] = gplot.Tick{Value: at(i), Label: shorten(l)}
	}
	return ticks
}

// RowLabels names a heat map's rows, top to bottom (one label per row;
// labels over 32 characters are cut with "…"), and returns f.
func (f *Figure) RowLabels(labels ...string) *Figure {
	rows := func(h *heat) int { return h.rows }
	at := func(i int) float64 { return float64(f.heat.rows - 1 - i) }
	f.p.Y.Tick.Marker = f.labelled("RowLabels", "rows", rows, at, labels)
	return f
}

// ColLabels names a heat map's columns, left to right (one label per
// column, written upwards so that long ones fit), and returns f.
func (f *Figure) ColLabels(labels ...string) *Figure {
	cols := func(h *heat) int { return h.cols }
	at := func(i int) float64 { return float64(i) }
	f.p.X.Tick.Marker = f.labelled("ColLabels", "columns", cols, at, labels)
	f.p.X.Tick.Label.Rotation = math.Pi / 2
	f.p.X.Tick.Label.XAlign, f.p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	return f
}

// ColorRange fixes a heat map's colour scale to [min, max] instead of the
// data's range (values beyond take the ends), e.g. ColorRange(-1, 1) for
// correlations, or a narrower range to bring out differences that one
// large value (a similarity matrix's diagonal of 1s) would flatten. It
// returns f.
func (f *Figure) ColorRange(min, max float64) *Figure {
	if f.heat == nil {
		panic(fmt.Errorf("plot.ColorRange: only a heat map has a colour scale; make the figure with plot.Heatmap"))
	}
	if !(min < max) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		panic(fmt.Errorf("plot.ColorRange(%v, %v): give finite min < max, e.g. ColorRange(0, 1)", min, max))
	}
	f.heat.cells.Min, f.heat.cells.Max = min, max
	f.heat.scale.SetMin(min)
	f.heat.scale.SetMax(max)
	return f
}

// barWidth is the strip on the right that holds the colour bar and its
// value labels, barGap the space on either side of it.
const (
	barWidth = 72 * vg.Inch / dpi
	barGap   = 8 * vg.Inch / dpi
)

// draw draws the figure on c: the plot, and a heat map's colour bar beside
// it, spanning the same height as the cells.
func (f *Figure) draw(c draw.Canvas) {
	main, strip, ok := f.layout(c)
	f.p.Draw(main)
	if ok {
		f.heat.bar().Draw(strip)
	}
}

// layout splits c into the plot's part and, for a heat map wide enough
// to have one, the colour bar's (level with the data area).
func (f *Figure) layout(c draw.Canvas) (main, strip draw.Canvas, bar bool) {
	if f.heat == nil || c.Max.X-c.Min.X < 3*barWidth {
		return c, c, false
	}
	main = draw.Crop(c, 0, -barWidth, 0, 0)
	cells := f.p.DataCanvas(main)
	strip = c
	strip.Min.X, strip.Max.X = main.Max.X+barGap, c.Max.X-barGap
	strip.Min.Y, strip.Max.Y = cells.Min.Y, cells.Max.Y
	return main, strip, true
}
