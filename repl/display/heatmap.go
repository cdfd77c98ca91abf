package display

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	plotpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// HeatMap is a grid of numbers drawn as coloured cells, each number
// written in its cell: a speedup for every number of workers and every
// τ, say. PNG draws it with gonum.org/v1/plot; String and Markdown draw
// it as a table.
type HeatMap struct {
	Title  string
	XLabel string // names the columns, left to right
	YLabel string // names the rows, top to bottom
	// Columns and Rows label the columns (left to right) and the rows
	// (top to bottom).
	Columns, Rows []string
	// Values holds one slice per row with one value per column. NaN
	// marks an empty cell (a run that never got there, say).
	Values [][]float64
	// Format writes a value into its cell with fmt; "" means "%.3g".
	Format string
	// Missing is written into empty cells; "" means "–".
	Missing string
	// Log colours the cells by the logarithm of their values, as suits
	// ratios; the values must then be positive.
	Log bool
	// Diverging colours values below Pivot red, values above it blue and
	// Pivot itself grey, each side from the pivot to its end of the
	// range (with Log, a Pivot of 0 means 1); otherwise the colours run
	// from light (low) to dark (high).
	Diverging bool
	Pivot     float64
	// Min and Max fix the range of the colours (values beyond it get the
	// end colours); when both are 0 the range spans the values. Give
	// several maps the same range to compare them by colour.
	Min, Max float64
	// Width and Height are the PNG's size in pixels (at 96 dpi); zero
	// means 480×360.
	Width, Height int
}

// NewHeatMap returns a heat map with the given row and column labels and
// every cell empty; fill it with Set.
func NewHeatMap(title string, rows, columns []string) *HeatMap {
	h := &HeatMap{Title: title, Rows: append([]string(nil), rows...), Columns: append([]string(nil), columns...)}
	h.Values = make([][]float64, len(rows))
	for r := range h.Values {
		h.Values[r] = make([]float64, len(columns))
		for c := range h.Values[r] {
			h.Values[r][c] = math.NaN()
		}
	}
	return h
}

// Set puts v into the cell of row r and column c (from 0).
func (h *HeatMap) Set(r, c int, v float64) error {
	if r < 0 || r >= len(h.Values) || c < 0 || c >= len(h.Values[r]) {
		return fmt.Errorf("display: heat map %q has no cell (%d, %d): it has %d rows and %d columns", h.Title, r, c, len(h.Rows), len(h.Columns))
	}
	h.Values[r][c] = v
	return nil
}

// check reports a grid whose shape disagrees with its labels, or values
// the colour scale cannot take.
func (h *HeatMap) check() error {
	if len(h.Rows) == 0 || len(h.Columns) == 0 {
		return fmt.Errorf("display: heat map %q needs at least one row and one column (it has %d and %d)", h.Title, len(h.Rows), len(h.Columns))
	}
	if len(h.Values) != len(h.Rows) {
		return fmt.Errorf("display: heat map %q has %d rows of values and %d row labels", h.Title, len(h.Values), len(h.Rows))
	}
	for r, row := range h.Values {
		if len(row) != len(h.Columns) {
			return fmt.Errorf("display: heat map %q: row %q has %d values and there are %d columns", h.Title, h.Rows[r], len(row), len(h.Columns))
		}
		for c, v := range row {
			if math.IsInf(v, 0) || h.Log && v <= 0 {
				return fmt.Errorf("display: heat map %q: cell (%s, %s) is %g; colours need finite values, positive ones with Log (use NaN for an empty cell)", h.Title, h.Rows[r], h.Columns[c], v)
			}
		}
	}
	if h.Min != 0 || h.Max != 0 {
		if !(h.Min < h.Max) || h.Log && h.Min <= 0 {
			return fmt.Errorf("display: heat map %q: colour range [%g, %g] must have Min < Max, and Min > 0 with Log", h.Title, h.Min, h.Max)
		}
	}
	if h.Diverging && h.Log && h.Pivot < 0 {
		return fmt.Errorf("display: heat map %q: Pivot %g must be positive with Log", h.Title, h.Pivot)
	}
	return nil
}

// scale maps values to colours: every value to a position in [0, 1],
// and positions to the colours of a palette.
type scale struct {
	log       bool
	lo, hi    float64 // the range, transformed
	diverging bool
	pivot     float64 // transformed
	colors    []color.Color
}

// paletteSize is odd, so a diverging palette has a middle colour.
const paletteSize = 255

// emptyColor fills empty cells.
var emptyColor = color.RGBA{R: 235, G: 235, B: 235, A: 255}

func (h *HeatMap) scale() scale {
	s := scale{log: h.Log, diverging: h.Diverging}
	if h.Min != 0 || h.Max != 0 {
		s.lo, s.hi = s.z(h.Min), s.z(h.Max)
	} else {
		s.lo, s.hi = math.Inf(1), math.Inf(-1)
		for _, row := range h.Values {
			for _, v := range row {
				if !math.IsNaN(v) {
					s.lo, s.hi = math.Min(s.lo, s.z(v)), math.Max(s.hi, s.z(v))
				}
			}
		}
		if s.lo > s.hi { // every cell empty
			s.lo, s.hi = 0, 1
		}
	}
	var cm plotpalette.ColorMap
	if h.Diverging {
		pivot := h.Pivot
		if h.Log && pivot == 0 {
			pivot = 1
		}
		s.pivot = s.z(pivot)
		cm = moreland.SmoothBlueRed()
	} else {
		cm = moreland.Kindlmann()
	}
	cm.SetMin(0)
	cm.SetMax(1)
	// Both maps run the other way: blue to red, and dark to light.
	// (palette.Reverse drops the middle colour of an odd palette.)
	s.colors = slices.Clone(cm.Palette(paletteSize).Colors())
	slices.Reverse(s.colors)
	return s
}

// z is the value a colour stands for.
func (s scale) z(v float64) float64 {
	if s.log {
		return math.Log10(v)
	}
	return v
}

// pos places value v in [0, 1]. A diverging scale puts the pivot at 1/2
// and stretches each side to its end of the range, so that the extremes
// get the strongest colours on both sides.
func (s scale) pos(v float64) float64 {
	z := math.Min(math.Max(s.z(v), s.lo), s.hi)
	if !s.diverging {
		if s.hi == s.lo {
			return 0.5
		}
		return (z - s.lo) / (s.hi - s.lo)
	}
	switch {
	case z < s.pivot:
		return 0.5 - 0.5*(s.pivot-z)/(s.pivot-s.lo)
	case z > s.pivot:
		return 0.5 + 0.5*(z-s.pivot)/(s.hi-s.pivot)
	}
	return 0.5
}

// color is the colour of value v, the same as plotter.HeatMap picks for
// its position.
func (s scale) color(v float64) color.Color {
	if math.IsNaN(v) {
		return emptyColor
	}
	return s.colors[int(s.pos(v)*float64(len(s.colors)-1)+0.5)]
}

// CellColor returns the colour PNG gives the cell of row r and column c,
// or nil for a cell the map does not have.
func (h *HeatMap) CellColor(r, c int) color.Color {
	if h.check() != nil || r < 0 || r >= len(h.Rows) || c < 0 || c >= len(h.Columns) {
		return nil
	}
	return h.scale().color(h.Values[r][c])
}

// cell writes a value as its cell shows it.
func (h *HeatMap) cell(v float64) string {
	if math.IsNaN(v) {
		if h.Missing == "" {
			return "–"
		}
		return h.Missing
	}
	f := h.Format
	if f == "" {
		f = "%.3g"
	}
	return fmt.Sprintf(f, v)
}

// grid is a heat map's values as plotter.GridXYZ: column c at x = c, the
// top row at the highest y.
type grid struct {
	values [][]float64
	scale  scale
}

func (g grid) Dims() (c, r int) { return len(g.values[0]), len(g.values) }
func (g grid) X(c int) float64  { return float64(c) }
func (g grid) Y(r int) float64  { return float64(r) }
func (g grid) Z(c, r int) float64 {
	v := g.values[len(g.values)-1-r][c]
	if math.IsNaN(v) {
		return v
	}
	return g.scale.pos(v)
}

// plot builds the heat map's plot.
func (h *HeatMap) plot() (*plot.Plot, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	s := h.scale()
	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text = h.XLabel
	p.Y.Label.Text = h.YLabel
	hm := plotter.NewHeatMap(grid{values: h.Values, scale: s}, plotpalette.Palette(paletteColors(s.colors)))
	hm.Min, hm.Max = 0, 1
	hm.NaN = emptyColor
	p.Add(hm)

	var xys plotter.XYs
	var labels []string
	var colors []color.Color
	for r, row := range h.Values {
		for c, v := range row {
			xys = append(xys, plotter.XY{X: float64(c), Y: float64(len(h.Values) - 1 - r)})
			labels = append(labels, h.cell(v))
			colors = append(colors, textColor(s.color(v)))
		}
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("display: heat map %q: %w", h.Title, err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Color = colors[i]
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YCenter
	}
	p.Add(l)

	rows := make([]string, len(h.Rows))
	for i, name := range h.Rows {
		rows[len(rows)-1-i] = name
	}
	p.NominalX(h.Columns...)
	p.NominalY(rows...)
	return p, nil
}

// paletteColors is a plotpalette.Palette of fixed colours.
type paletteColors []color.Color

func (p paletteColors) Colors() []color.Color { return p }

// textColor is black on light colours and white on dark ones.
func textColor(bg color.Color) color.Color {
	r, g, b, _ := bg.RGBA()
	lum := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	if lum < 0.45 {
		return color.White
	}
	return color.Black
}

// PNG draws the heat map as a PNG image.
func (h *HeatMap) PNG() ([]byte, error) {
	p, err := h.plot()
	if err != nil {
		return nil, err
	}
	w, ht := pixels(h.Width, h.Height, 480, 360)
	c := vgimg.NewWith(vgimg.UseWH(w, ht), vgimg.UseDPI(dpi))
	p.Draw(draw.New(c))
	return encodePNG(c)
}

// Save writes the heat map as a PNG file.
func (h *HeatMap) Save(path string) error { return savePNG(path, h.PNG) }

// Table returns the heat map's numbers as a table: one row per row of
// the map, a first column with the row labels.
func (h *HeatMap) Table() *Table {
	corner := h.YLabel
	if h.XLabel != "" {
		corner += " \\ " + h.XLabel
	}
	t := NewTable(append([]string{corner}, h.Columns...)...)
	t.Title = h.Title
	t.TextColumns = []string{corner}
	for r, name := range h.Rows {
		row := []string{name}
		if r < len(h.Values) {
			for _, v := range h.Values[r] {
				row = append(row, h.cell(v))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// String draws the heat map as a table with box lines.
func (h *HeatMap) String() string { return h.Table().String() }

// Markdown draws the heat map as a Markdown table.
func (h *HeatMap) Markdown() string { return h.Table().Markdown() }

// HeatMaps is several heat maps side by side in one image, in rows of
// Columns panels: one panel for each communication cost, say.
type HeatMaps struct {
	Title string
	Maps  []*HeatMap
	// Columns is the number of panels in a row; 0 means 2 (1 for a
	// single map).
	Columns int
	// Width and Height are the PNG's size in pixels (at 96 dpi); zero
	// means 480×360 for every panel.
	Width, Height int
}

// NewHeatMaps returns the heat maps as panels of one image.
func NewHeatMaps(title string, maps ...*HeatMap) *HeatMaps {
	return &HeatMaps{Title: title, Maps: maps}
}

func (hs *HeatMaps) layout() (cols, rows int) {
	cols = hs.Columns
	if cols <= 0 {
		cols = 2
	}
	cols = min(cols, max(len(hs.Maps), 1))
	return cols, (len(hs.Maps) + cols - 1) / cols
}

// PNG draws the panels as one PNG image, with the title above them.
func (hs *HeatMaps) PNG() ([]byte, error) {
	if len(hs.Maps) == 0 {
		return nil, fmt.Errorf("display: heat maps %q: no maps to draw", hs.Title)
	}
	cols, rows := hs.layout()
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	for i, m := range hs.Maps {
		if m == nil {
			return nil, fmt.Errorf("display: heat maps %q: map %d is nil", hs.Title, i)
		}
		p, err := m.plot()
		if err != nil {
			return nil, err
		}
		plots[i/cols][i%cols] = p
	}
	w, ht := pixels(hs.Width, hs.Height, 480*cols, 360*rows)
	c := vgimg.NewWith(vgimg.UseWH(w, ht), vgimg.UseDPI(dpi))
	dc := draw.New(c)
	if hs.Title != "" {
		title := plot.New().Title.TextStyle // the style of a plot's title
		title.XAlign, title.YAlign = draw.XCenter, draw.YTop
		pad := title.Height(hs.Title) + vg.Points(4)
		dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)}, hs.Title)
		dc = draw.Crop(dc, 0, 0, 0, -pad-vg.Points(4))
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(8)}
	canvases := plot.Align(plots, tiles, dc)
	for r := range plots {
		for col, p := range plots[r] {
			if p != nil {
				p.Draw(canvases[r][col])
			}
		}
	}
	return encodePNG(c)
}

// Save writes the panels as a PNG file.
func (hs *HeatMaps) Save(path string) error { return savePNG(path, hs.PNG) }

// String draws every map as a table, one after another.
func (hs *HeatMaps) String() string {
	var b strings.Builder
	if hs.Title != "" {
		b.WriteString(hs.Title + "\n")
	}
	for i, m := range hs.Maps {
		if i > 0 {
			b.WriteString("\n")
		}
		if m != nil {
			b.WriteString(m.String())
		}
	}
	return b.String()
}

const dpi = 96

// pixels turns a size in pixels (zero for the default) into lengths.
func pixels(w, h, defW, defH int) (vg.Length, vg.Length) {
	if w <= 0 {
		w = defW
	}
	if h <= 0 {
		h = defH
	}
	return vg.Length(w) * vg.Inch / dpi, vg.Length(h) * vg.Inch / dpi
}

func encodePNG(c *vgimg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("display: %w", err)
	}
	return buf.Bytes(), nil
}

func savePNG(path string, render func() ([]byte, error)) error {
	b, err := render()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("display: %w", err)
	}
	return nil
}
