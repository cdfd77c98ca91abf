package display

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"

	"github.com/sparknet-go/sparknet/ndarray"
)

// Markdown is text in Markdown. Shown in a notebook it is rendered; in a
// terminal it is printed as it is:
//
//	display.Show(display.Markdown("**loss** fell below 0.1"))
type Markdown string

// String returns the Markdown text.
func (m Markdown) String() string { return string(m) }

// HTML is a fragment of HTML. Shown in a notebook it is rendered; in a
// terminal it is printed as it is.
type HTML string

// String returns the HTML text.
func (h HTML) String() string { return string(h) }

// Image is a picture drawn from an array: a 2-D array is a grey image, a
// C×H×W array (Caffe's layout) with 1 or 3 channels a grey or colour
// image, and an N×C×H×W array a grid of N images, such as a minibatch of
// digits or the filters of a convolution. Values are scaled from
// [Min, Max] to black..white; when both are 0 the range spans the values.
type Image struct {
	Title string
	Array *ndarray.Array
	// Min and Max fix the range of the values shown.
	Min, Max float64
	// Scale enlarges every pixel to Scale×Scale; 0 picks one that makes
	// small images (digits, filters) visible.
	Scale int
}

// NewImage returns an Image of the array a.
func NewImage(title string, a *ndarray.Array) *Image { return &Image{Title: title, Array: a} }

// String describes the image for a terminal.
func (im *Image) String() string {
	if im.Array == nil {
		return "Image (empty)"
	}
	t := "Image"
	if im.Title != "" {
		t += " " + im.Title
	}
	return fmt.Sprintf("%s: %s array, shown as PNG in a notebook", t, Shape(im.Array.Shape()))
}

// Picture draws the image.
func (im *Image) Picture() (image.Image, error) {
	a := im.Array
	if a == nil {
		return nil, fmt.Errorf("display: Image %q has no array", im.Title)
	}
	shape := a.Shape()
	var n, c, h, w int
	switch len(shape) {
	case 2:
		n, c, h, w = 1, 1, shape[0], shape[1]
	case 3:
		n, c, h, w = 1, shape[0], shape[1], shape[2]
	case 4:
		n, c, h, w = shape[0], shape[1], shape[2], shape[3]
	default:
		return nil, fmt.Errorf("display: Image of a %s array: want H×W, C×H×W or N×C×H×W", Shape(shape))
	}
	if c != 1 && c != 3 {
		return nil, fmt.Errorf("display: Image of a %s array: %d channels; want 1 (grey) or 3 (colour)", Shape(shape), c)
	}
	if n*h*w == 0 {
		return nil, fmt.Errorf("display: Image of an empty %s array", Shape(shape))
	}
	data := a.Contiguous().Data()
	lo, hi := im.Min, im.Max
	if lo == 0 && hi == 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range data {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	scale := im.Scale
	if scale <= 0 {
		scale = max(1, min(8, 112/max(h, w)))
	}
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	gap := 1
	if n == 1 {
		gap = 0
	}
	W, H := cols*(w*scale+gap)-gap, rows*(h*scale+gap)-gap
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	for i := range img.Pix {
		img.Pix[i] = 0xff // white gaps
	}
	level := func(v float32) uint8 {
		x := (float64(v) - lo) / (hi - lo)
		return uint8(math.Round(255 * math.Min(math.Max(x, 0), 1)))
	}
	for k := 0; k < n; k++ {
		ox, oy := (k%cols)*(w*scale+gap), (k/cols)*(h*scale+gap)
		base := k * c * h * w
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				var col color.RGBA
				if c == 1 {
					g := level(data[base+y*w+x])
					col = color.RGBA{g, g, g, 0xff}
				} else {
					col = color.RGBA{level(data[base+y*w+x]), level(data[base+h*w+y*w+x]), level(data[base+2*h*w+y*w+x]), 0xff}
				}
				for dy := 0; dy < scale; dy++ {
					for dx := 0; dx < scale; dx++ {
						img.SetRGBA(ox+x*scale+dx, oy+y*scale+dy, col)
					}
				}
			}
		}
	}
	return img, nil
}

// PNG draws the image as PNG.
func (im *Image) PNG() ([]byte, error) {
	pic, err := im.Picture()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, pic); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Save writes the image as a PNG file.
func (im *Image) Save(path string) error { return savePNG(path, im.PNG) }

// HTML draws the table as an HTML table.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="sparknet-table">`)
	if t.Title != "" {
		b.WriteString("<caption>" + html.EscapeString(t.Title) + "</caption>")
	}
	right := make([]bool, len(t.Header))
	for c := range right {
		right[c] = t.numeric(c)
	}
	b.WriteString("<thead><tr>")
	for c, h := range t.Header {
		fmt.Fprintf(&b, `<th style="text-align:%s">%s</th>`, side(right[c]), html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for c := range t.Header {
			cell := ""
			if c < len(row) {
				cell = row[c]
			}
			fmt.Fprintf(&b, `<td style="text-align:%s">%s</td>`, side(right[c]), html.EscapeString(cell))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	if t.Footer != "" {
		b.WriteString("<p>" + html.EscapeString(t.Footer) + "</p>")
	}
	return b.String()
}

func side(right bool) string {
	if right {
		return "right"
	}
	return "left"
}

// ArrayHTML draws an array for a notebook: a 1-D or 2-D array of at most
// 40×40 values as an HTML table under its header, a larger one as its
// numpy-style text.
func ArrayHTML(a *ndarray.Array) string {
	head := html.EscapeString(a.Header())
	shape := a.Shape()
	if len(shape) == 0 || len(shape) > 2 || shape[len(shape)-1] > 40 || (len(shape) == 2 && shape[0] > 40) {
		return "<pre>" + html.EscapeString(a.String()) + "</pre>"
	}
	rows, cols := 1, shape[0]
	if len(shape) == 2 {
		rows, cols = shape[0], shape[1]
	}
	var b strings.Builder
	b.WriteString(`<table class="sparknet-array"><caption>` + head + "</caption><tbody>")
	for r := 0; r < rows; r++ {
		b.WriteString("<tr>")
		for c := 0; c < cols; c++ {
			var v float32
			if len(shape) == 2 {
				v = a.At(r, c)
			} else {
				v = a.At(c)
			}
			b.WriteString(`<td style="text-align:right">` + formatFloat(float64(v)) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// RichHTML returns v drawn as HTML for a notebook, and whether v has an
// HTML form: tables (and the values shown as tables), arrays, HTML and
// live progress.
func RichHTML(v any) (string, bool) {
	switch x := v.(type) {
	case HTML:
		return string(x), true
	case *ndarray.Array:
		if x != nil {
			return ArrayHTML(x), true
		}
	case *ProgressView:
		if x != nil {
			return x.HTML(), true
		}
	}
	if t := AsTable(v); t != nil {
		return t.HTML(), true
	}
	return "", false
}

// RichPNG returns v drawn as a PNG image, and whether v is a picture:
// figures (and training histories), heat maps and images.
func RichPNG(v any) ([]byte, bool, error) {
	var draw func() ([]byte, error)
	switch x := v.(type) {
	case *HeatMap:
		if x != nil {
			draw = x.PNG
		}
	case *HeatMaps:
		if x != nil {
			draw = x.PNG
		}
	case *Image:
		if x != nil {
			draw = x.PNG
		}
	default:
		if f := AsFigure(v); f != nil {
			draw = f.PNG
		}
	}
	if draw == nil {
		return nil, false, nil
	}
	b, err := draw()
	return b, true, err
}
