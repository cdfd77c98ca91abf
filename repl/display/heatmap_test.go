package display

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// speedups is a small map of speedups with an empty cell.
func speedups() *HeatMap {
	h := NewHeatMap("S = 10C", []string{"1", "2", "4"}, []string{"1", "5", "20"})
	h.XLabel, h.YLabel = "τ", "K"
	h.Log, h.Diverging = true, true
	for r, row := range [][]float64{{0.0909, 0.333, 0.667}, {0.2, 0.9, 1.6}, {0.35, math.NaN(), 3.1}} {
		for c, v := range row {
			if err := h.Set(r, c, v); err != nil {
				panic(err)
			}
		}
	}
	return h
}

func TestHeatMapText(t *testing.T) {
	steps := NewHeatMap("iterations", []string{"1", "2"}, []string{"1", "5"})
	steps.Format, steps.Missing = "%.0f", "> 200"
	steps.Set(0, 0, 150)
	steps.Set(0, 1, 150)
	steps.Set(1, 0, 100)
	golden(t, "heatmap.txt", speedups().String()+NewHeatMaps("panels", steps).String())
	golden(t, "heatmap.md", speedups().Markdown())
}

// decode decodes a PNG and checks its size.
func decode(t *testing.T, b []byte, w, h int) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if size := img.Bounds().Size(); size.X != w || size.Y != h {
		t.Fatalf("image is %v, want %d×%d", size, w, h)
	}
	return img
}

// colorCounts counts the pixels of every colour.
func colorCounts(img image.Image) map[color.RGBA]int {
	n := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	return n
}

func TestHeatMapPNG(t *testing.T) {
	tests := []struct {
		name string
		edit func(h *HeatMap)
	}{
		{"log diverging", func(h *HeatMap) {}},
		{"linear", func(h *HeatMap) { h.Log, h.Diverging = false, false }},
		{"fixed range", func(h *HeatMap) { h.Min, h.Max = 0.1, 10 }},
		{"one value", func(h *HeatMap) {
			*h = *NewHeatMap("one", []string{"a"}, []string{"b"})
			h.Set(0, 0, 2)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := speedups()
			tc.edit(h)
			h.Width, h.Height = 400, 300
			b, err := h.PNG()
			if err != nil {
				t.Fatal(err)
			}
			counts := colorCounts(decode(t, b, 400, 300))
			// Every cell is filled with its colour: at least a quarter
			// of its share of the image.
			cells := len(h.Rows) * len(h.Columns)
			want := 400 * 300 / cells / 4
			seen := map[color.RGBA]bool{}
			for r := range h.Rows {
				for c := range h.Columns {
					col := color.RGBAModel.Convert(h.CellColor(r, c)).(color.RGBA)
					if seen[col] {
						continue // cells of the same colour share the count
					}
					seen[col] = true
					if counts[col] < want {
						t.Errorf("cell (%d, %d): %d pixels of its colour %v, want at least %d", r, c, counts[col], col, want)
					}
				}
			}
		})
	}
}

func TestHeatMapColors(t *testing.T) {
	h := speedups()
	lum := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		return float64(r + g + b)
	}
	blueness := func(c color.Color) int {
		r, _, b, _ := color.RGBAModel.Convert(c).RGBA()
		return int(b>>8) - int(r>>8)
	}
	// Below the pivot is red, above it blue; farther from it is darker.
	if blueness(h.CellColor(0, 0)) >= 0 || blueness(h.CellColor(2, 2)) <= 0 {
		t.Errorf("0.09 is %v and 3.1 is %v: want red below 1 and blue above", h.CellColor(0, 0), h.CellColor(2, 2))
	}
	if !(lum(h.CellColor(2, 2)) < lum(h.CellColor(1, 2))) {
		t.Errorf("3.1 (%v) is not darker than 1.6 (%v)", h.CellColor(2, 2), h.CellColor(1, 2))
	}
	// Each side stretches to its end of the range.
	colors := h.scale().colors
	if h.CellColor(0, 0) != colors[0] || h.CellColor(2, 2) != colors[len(colors)-1] {
		t.Errorf("the lowest and highest values are %v and %v, want the ends of the palette %v and %v", h.CellColor(0, 0), h.CellColor(2, 2), colors[0], colors[len(colors)-1])
	}
	if got := color.RGBAModel.Convert(h.CellColor(2, 1)); got != emptyColor {
		t.Errorf("the empty cell is %v, want %v", got, emptyColor)
	}
	if h.CellColor(3, 0) != nil || h.CellColor(0, -1) != nil {
		t.Error("cells outside the map have colours")
	}
	// The pivot in the middle of a symmetric range is white-ish.
	h.Min, h.Max = 0.1, 10
	h.Set(0, 0, 1)
	if r, g, b, _ := h.CellColor(0, 0).RGBA(); r>>8 < 200 || g>>8 < 200 || b>>8 < 200 {
		t.Errorf("the pivot is %v, want near white", h.CellColor(0, 0))
	}
	// Sequential: higher is darker.
	s := speedups()
	s.Log, s.Diverging = false, false
	if !(lum(s.CellColor(2, 2)) < lum(s.CellColor(0, 0))) {
		t.Errorf("sequential: 3.1 (%v) is not darker than 0.09 (%v)", s.CellColor(2, 2), s.CellColor(0, 0))
	}
}

func TestHeatMapErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(h *HeatMap)
		want string
	}{
		{"no rows", func(h *HeatMap) { *h = *NewHeatMap("x", nil, []string{"a"}) }, "at least one row and one column"},
		{"ragged", func(h *HeatMap) { h.Values[1] = h.Values[1][:2] }, `row "2" has 2 values and there are 3 columns`},
		{"missing row", func(h *HeatMap) { h.Values = h.Values[:2] }, "2 rows of values and 3 row labels"},
		{"log of zero", func(h *HeatMap) { h.Values[0][1] = 0 }, "cell (1, 5) is 0"},
		{"infinite", func(h *HeatMap) { h.Log = false; h.Values[0][1] = math.Inf(1) }, "cell (1, 5) is +Inf"},
		{"bad range", func(h *HeatMap) { h.Min, h.Max = 2, 1 }, "colour range [2, 1]"},
		{"log range", func(h *HeatMap) { h.Min, h.Max = 0, 1 }, "Min > 0 with Log"},
		{"negative pivot", func(h *HeatMap) { h.Pivot = -1 }, "Pivot -1 must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := speedups()
			tc.edit(h)
			_, err := h.PNG()
			if err == nil || !strings.HasPrefix(err.Error(), "display: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
			if _, err := NewHeatMaps("panels", speedups(), h).PNG(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("panels: error %v, want one with %q", err, tc.want)
			}
		})
	}
	if err := speedups().Set(3, 0, 1); err == nil || !strings.Contains(err.Error(), "no cell (3, 0): it has 3 rows and 3 columns") {
		t.Errorf("Set out of range: error %v", err)
	}
	if _, err := NewHeatMaps("none").PNG(); err == nil || !strings.Contains(err.Error(), "no maps") {
		t.Errorf("no maps: error %v", err)
	}
}

func TestHeatMaps(t *testing.T) {
	var maps []*HeatMap
	for range 3 {
		maps = append(maps, speedups())
	}
	hs := NewHeatMaps("speedup over K = 1", maps...)
	b, err := hs.PNG()
	if err != nil {
		t.Fatal(err)
	}
	counts := colorCounts(decode(t, b, 960, 720)) // 2 columns, 2 rows of 480×360
	col := color.RGBAModel.Convert(maps[0].CellColor(2, 2)).(color.RGBA)
	if counts[col] < 3*960*720/4/9/4 {
		t.Errorf("%d pixels of the colour of cell (2, 2) in 3 panels", counts[col])
	}
	path := filepath.Join(t.TempDir(), "maps.png")
	if err := hs.Save(path); err != nil {
		t.Fatal(err)
	}
	if err := speedups().Save(filepath.Join(t.TempDir(), "missing", "x.png")); err == nil {
		t.Error("saving into a missing folder succeeded")
	}
	hs.Columns, hs.Width, hs.Height = 3, 900, 300
	if b, err = hs.PNG(); err != nil {
		t.Fatal(err)
	}
	decode(t, b, 900, 300)
}
