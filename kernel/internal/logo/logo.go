// Package logo draws the kernel's logo: an E set in the cells of a 5×5
// array, white on Go's blue. One list of shapes gives both the SVG that
// JupyterLab's launcher and About dialog show and the 32 and 64 pixel PNGs
// older front ends take, so the two cannot drift. `go generate ./kernel/`
// writes them into kernel/logo/, which the kernel embeds and `emily-repl
// install` copies into the kernelspec.
package logo

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
)

// Size is the side of the logo's coordinate square.
const Size = 64

// A cell of the grid: on cells form the E, off cells show the array.
type cell struct {
	x, y, w, h, r float64
	on            bool
}

var (
	top    = color.NRGBA{0x00, 0xAD, 0xD8, 0xFF} // Go's brand blue
	bottom = color.NRGBA{0x00, 0x6E, 0x8A, 0xFF}
	corner = 14.0 // the background's corner radius
	offA   = 0.28 // the off cells' opacity
)

// E in the middle three columns of a 5×5 grid.
var rows = [5]string{
	".###.",
	".#...",
	".##..",
	".#...",
	".###.",
}

func cells() []cell {
	const margin, gap = 10.0, 2.0
	side := (Size - 2*margin - 4*gap) / 5
	var cs []cell
	for r, row := range rows {
		for c, ch := range row {
			cs = append(cs, cell{
				x: margin + float64(c)*(side+gap), y: margin + float64(r)*(side+gap),
				w: side, h: side, r: 1.6, on: ch == '#',
			})
		}
	}
	return cs
}

// SVG returns the logo as an SVG document.
func SVG() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", Size, Size, Size, Size)
	b.WriteString(`<title>Emily for Go</title>` + "\n")
	fmt.Fprintf(&b, `<defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="%s"/><stop offset="1" stop-color="%s"/></linearGradient></defs>`+"\n", hex(top), hex(bottom))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" rx="%g" fill="url(#bg)"/>`+"\n", Size, Size, corner)
	for _, c := range cells() {
		op := ""
		if !c.on {
			op = fmt.Sprintf(` fill-opacity="%g"`, offA)
		}
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="#fff"%s/>`+"\n", c.x, c.y, c.w, c.h, c.r, op)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func hex(c color.NRGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// Image renders the logo at px×px, 8×8 samples a pixel, painting the
// shapes as SVG does (source-over, the gradient in sRGB).
func Image(px int) *image.NRGBA {
	const ss = 8
	cs := cells()
	img := image.NewNRGBA(image.Rect(0, 0, px, px))
	scale := float64(Size) / float64(px)
	for py := 0; py < px; py++ {
		for pxx := 0; pxx < px; pxx++ {
			var r, g, b, a float64 // premultiplied sums
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(pxx) + (float64(sx)+0.5)/ss) * scale
					y := (float64(py) + (float64(sy)+0.5)/ss) * scale
					cr, cg, cb, ca := sample(cs, x, y)
					r, g, b, a = r+cr*ca, g+cg*ca, b+cb*ca, a+ca
				}
			}
			n := float64(ss * ss)
			if a == 0 {
				continue
			}
			img.SetNRGBA(pxx, py, color.NRGBA{
				R: to8(r / a), G: to8(g / a), B: to8(b / a), A: to8(a / n),
			})
		}
	}
	return img
}

// sample is the colour (straight, 0..1) and coverage at one point.
func sample(cs []cell, x, y float64) (r, g, b, a float64) {
	if !inRounded(x, y, 0, 0, Size, Size, corner) {
		return 0, 0, 0, 0
	}
	t := y / Size
	lerp := func(p, q uint8) float64 { return (float64(p) + (float64(q)-float64(p))*t) / 255 }
	r, g, b, a = lerp(top.R, bottom.R), lerp(top.G, bottom.G), lerp(top.B, bottom.B), 1
	for _, c := range cs {
		if inRounded(x, y, c.x, c.y, c.w, c.h, c.r) {
			o := 1.0
			if !c.on {
				o = offA
			}
			r, g, b = r+(1-r)*o, g+(1-g)*o, b+(1-b)*o // white over
		}
	}
	return r, g, b, a
}

func inRounded(x, y, rx, ry, w, h, rad float64) bool {
	if x < rx || y < ry || x > rx+w || y > ry+h {
		return false
	}
	cx := math.Max(rx+rad, math.Min(x, rx+w-rad))
	cy := math.Max(ry+rad, math.Min(y, ry+h-rad))
	return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= rad*rad
}

func to8(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(1, v)) * 255)) }

// PNG returns Image(px) encoded.
func PNG(px int) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, Image(px)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
