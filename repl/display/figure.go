package display

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Figure is a line chart of one or more series. PNG draws it with
// gonum.org/v1/plot; String draws each series as a sparkline, which is
// how the shell shows a figure in a terminal.
type Figure struct {
	Title  string
	XLabel string
	YLabel string
	Series []Series
	// Width and Height are the PNG's size in pixels (at 96 dpi); zero
	// means 640×400.
	Width, Height int
}

// Series is one line of a Figure. X may be nil, meaning 1, 2, 3, ...
type Series struct {
	Name string
	X, Y []float64
}

// NewFigure returns an empty figure with a title.
func NewFigure(title string) *Figure {
	return &Figure{Title: title}
}

// Line adds a series plotted against 1, 2, 3, ...
func (f *Figure) Line(name string, y []float64) *Figure {
	f.Series = append(f.Series, Series{Name: name, Y: append([]float64(nil), y...)})
	return f
}

// LineXY adds a series of points (x[i], y[i]); the slices must have the
// same length.
func (f *Figure) LineXY(name string, x, y []float64) *Figure {
	f.Series = append(f.Series, Series{Name: name, X: append([]float64(nil), x...), Y: append([]float64(nil), y...)})
	return f
}

var palette = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255},
	color.RGBA{R: 255, G: 127, B: 14, A: 255},
	color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 214, G: 39, B: 40, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255},
}

// PNG draws the figure as a PNG image.
func (f *Figure) PNG() ([]byte, error) {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Add(plotter.NewGrid())
	for i, s := range f.Series {
		if s.X != nil && len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("display: series %q has %d x values and %d y values", s.Name, len(s.X), len(s.Y))
		}
		var pts plotter.XYs
		for j, y := range s.Y {
			x := float64(j + 1)
			if s.X != nil {
				x = s.X[j]
			}
			if finite(x) && finite(y) {
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("display: series %q: %w", s.Name, err)
		}
		line.Color = palette[i%len(palette)]
		line.Width = vg.Points(1.5)
		p.Add(line)
		if s.Name != "" {
			p.Legend.Add(s.Name, line)
		}
	}
	p.Legend.Top = true
	w, h := f.Width, f.Height
	if w <= 0 {
		w = 640
	}
	if h <= 0 {
		h = 400
	}
	const dpi = 96
	wt, err := p.WriterTo(vg.Length(w)*vg.Inch/dpi, vg.Length(h)*vg.Inch/dpi, "png")
	if err != nil {
		return nil, fmt.Errorf("display: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: %w", err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure as a PNG file.
func (f *Figure) Save(path string) error {
	png, err := f.PNG()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("display: %w", err)
	}
	return nil
}

// String draws each series as a sparkline with its first, last, lowest
// and highest values.
func (f *Figure) String() string {
	var b strings.Builder
	if f.Title != "" {
		b.WriteString(f.Title + "\n")
	}
	width := 0
	for _, s := range f.Series {
		width = max(width, len(s.Name))
	}
	for _, s := range f.Series {
		lo, hi := math.Inf(1), math.Inf(-1)
		first, last := math.NaN(), math.NaN()
		for _, y := range s.Y {
			if finite(y) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
				if math.IsNaN(first) {
					first = y
				}
				last = y
			}
		}
		fmt.Fprintf(&b, "%-*s %s", width, s.Name, SparklineWidth(s.Y, 60))
		if !math.IsNaN(first) {
			fmt.Fprintf(&b, "  %s → %s (min %s, max %s)", formatFloat(first), formatFloat(last), formatFloat(lo), formatFloat(hi))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
