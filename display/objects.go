package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Displayer is implemented by values that choose their own MIME bundle,
// e.g. {"text/html": "<b>hi</b>", "text/plain": "hi"}. Binary data
// (image/png) is base64 text, as Jupyter carries it. A bundle without
// text/plain gets one from fmt's %v, which is what a terminal shows.
type Displayer interface {
	MIMEBundle() map[string]any
}

// Object is a value with a fixed MIME bundle, made by HTML, Markdown, SVG,
// PNG, Image and JSON. It shows as its richest type in a notebook and as
// text in a terminal.
type Object struct {
	bundle Bundle
	text   func() string // the terminal's text, computed when first shown

	once sync.Once
	txt  string
}

// MIMEBundle implements Displayer.
func (o *Object) MIMEBundle() map[string]any {
	b := Bundle{}
	for k, v := range o.bundle {
		b[k] = v
	}
	return b
}

// String is what a terminal shows.
func (o *Object) String() string {
	o.once.Do(func() {
		// A zero Object (new(Object)) has no text: it shows as nothing, the
		// same every time (a panic inside once.Do would leave "" for the next
		// caller and a panic for the first).
		if o.text != nil {
			o.txt = o.text()
		}
	})
	return o.txt
}

func object(b Bundle, text func() string) *Object {
	if _, ok := b["text/plain"]; !ok {
		// Consoles (jupyter console) show text/plain; without it they show
		// nothing at all.
		b["text/plain"] = text()
	}
	return &Object{bundle: b, text: text}
}

var tags = regexp.MustCompile(`<[^>]*>`)

// HTML shows html as HTML in a notebook; a terminal shows its text with
// the tags removed.
func HTML(html string) *Object {
	return object(Bundle{"text/html": html}, func() string {
		return strings.TrimSpace(htmlUnescape(tags.ReplaceAllString(html, "")))
	})
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}

// Markdown shows md rendered in a notebook and as its source in a terminal.
func Markdown(md string) *Object {
	return object(Bundle{"text/markdown": md}, func() string { return md })
}

// SVG shows an SVG document as an image in a notebook; a terminal gets the
// path of a file holding it.
func SVG(svg string) *Object {
	desc := fmt.Sprintf("<SVG image, %d bytes>", len(svg))
	return object(Bundle{"image/svg+xml": svg, "text/plain": desc}, func() string {
		return saved("svg", []byte(svg), "SVG image")
	})
}

// PNG shows PNG-encoded data as an image in a notebook; a terminal gets
// the path of a file holding it. Data that is not a PNG is an error
// (checked here, so the notebook does not show a broken image).
func PNG(data []byte) (*Object, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("display.PNG: the data is not a PNG image (%v); for other formats decode them and use display.Image", err)
	}
	return pngObject(data, cfg.Width, cfg.Height), nil
}

// Image shows img as a PNG image in a notebook; a terminal gets the path
// of a PNG file holding it.
func Image(img image.Image) *Object {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		// png.Encode fails only on images with no pixels.
		return object(Bundle{}, func() string { return "display.Image: " + err.Error() })
	}
	r := img.Bounds()
	return pngObject(buf.Bytes(), r.Dx(), r.Dy())
}

func pngObject(data []byte, w, h int) *Object {
	desc := fmt.Sprintf("%d×%d PNG image", w, h)
	// Jupyter carries binary data as base64 text.
	b := Bundle{"image/png": base64.StdEncoding.EncodeToString(data), "text/plain": "<" + desc + ">"}
	return object(b, func() string { return saved("png", data, desc) })
}

// saved writes data to a new file in the temporary directory and
// describes it: a terminal cannot show the image itself.
func saved(ext string, data []byte, desc string) string {
	f, err := os.CreateTemp("", "emily-*."+ext)
	if err != nil {
		return fmt.Sprintf("<%s: cannot save it: %v>", desc, err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return fmt.Sprintf("<%s: cannot save it: %v>", desc, err)
	}
	return fmt.Sprintf("%s saved to %s", desc, f.Name())
}

// JSON shows v (encoded with encoding/json) as a collapsible tree in
// JupyterLab and as indented JSON in a terminal. A value json cannot
// encode is an error.
func JSON(v any) (*Object, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("display.JSON: %v", err)
	}
	var data any
	_ = json.Unmarshal(raw, &data) // the MIME bundle carries the value, not the text
	var ind bytes.Buffer
	_ = json.Indent(&ind, raw, "", "  ")
	text := ind.String()
	return object(Bundle{"application/json": data}, func() string { return text }), nil
}
