package ui

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

// The charts are inline SVG drawn here, on the server, so that a page is
// complete as sent and a live update is one swap of HTML.

// Colors of the series, in order, and of task and job states.
var palette = []string{"#1f6fd1", "#e8710a", "#188038", "#9334e6", "#d01884", "#12a4af"}

const (
	colorOK      = "#34a853"
	colorFailed  = "#d93025"
	colorRunning = "#4285f4"
	colorGrid    = "#e3e6ea"
	colorAxis    = "#5f6368"
)

// series is one line of a chart.
type series struct {
	name   string
	xs, ys []float64
	color  string
	step   bool    // drawn as a staircase: constant until the next point
	dots   bool    // each point marked, as for test results
	width  float64 // stroke width; 0 means 2
	faint  bool    // drawn light, behind the others
}

// lineChart is a chart of series against a common x axis.
type lineChart struct {
	title          string
	xLabel, yLabel string
	width, height  int
	series         []series
	marker         float64 // an x drawn as a dashed vertical line, or NaN
	yFrom0         bool    // the y axis starts at 0
	yMax           float64 // if > 0, the y axis ends here (accuracy: 1)
	// xFrom and xTo widen the x axis to cover them, unless NaN (with
	// both zero, the data alone sets the axis).
	xFrom, xTo float64
}

// plot geometry.
const (
	marginLeft   = 58
	marginRight  = 14
	marginTop    = 28
	marginBottom = 38
)

func (c lineChart) svg() template.HTML {
	w, h := c.width, c.height
	if w == 0 {
		w = 480
	}
	if h == 0 {
		h = 240
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, esc(c.title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="17" font-size="13" font-weight="600" fill="#202124">%s</text>`, marginLeft, esc(c.title))

	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	points := 0
	for _, s := range c.series {
		for i := range s.xs {
			x, y := s.xs[i], s.ys[i]
			if !finite(x) || !finite(y) {
				continue
			}
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			points++
		}
	}
	if points == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="%s">no data yet</text></svg>`, w/2-30, h/2, colorAxis)
		return template.HTML(b.String())
	}
	if c.yFrom0 && ymin > 0 {
		ymin = 0
	}
	if c.xFrom != c.xTo {
		if finite(c.xFrom) {
			xmin = math.Min(xmin, c.xFrom)
		}
		if finite(c.xTo) {
			xmax = math.Max(xmax, c.xTo)
		}
	}
	if c.yMax > 0 && ymax <= c.yMax {
		ymax = c.yMax
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymax == ymin {
		d := math.Max(math.Abs(ymax)*0.1, 1e-9)
		ymin, ymax = ymin-d, ymax+d
	}
	yticks := niceTicks(ymin, ymax, 5)
	ymin, ymax = math.Min(ymin, yticks[0]), math.Max(ymax, yticks[len(yticks)-1])
	xticks := niceTicks(xmin, xmax, 6)
	pw, ph := float64(w-marginLeft-marginRight), float64(h-marginTop-marginBottom)
	px := func(x float64) float64 { return marginLeft + (x-xmin)/(xmax-xmin)*pw }
	py := func(y float64) float64 { return float64(marginTop) + (1-(y-ymin)/(ymax-ymin))*ph }

	// Grid and axes.
	for _, t := range yticks {
		if t < ymin || t > ymax {
			continue
		}
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`, marginLeft, y, w-marginRight, y, colorGrid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end" fill="%s">%s</text>`, marginLeft-6, y+4, colorAxis, tickLabel(t, yticks))
	}
	for _, t := range xticks {
		if t < xmin || t > xmax {
			continue
		}
		x := px(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`, x, h-marginBottom, x, h-marginBottom+4, colorAxis)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>`, x, h-marginBottom+16, colorAxis, tickLabel(t, xticks))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, marginLeft, h-marginBottom, w-marginRight, h-marginBottom, colorAxis)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, marginLeft, marginTop, marginLeft, h-marginBottom, colorAxis)
	if c.xLabel != "" {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>`, marginLeft+pw/2, h-6, colorAxis, esc(c.xLabel))
	}
	if c.yLabel != "" {
		fmt.Fprintf(&b, `<text transform="translate(13 %.1f) rotate(-90)" font-size="11" text-anchor="middle" fill="%s">%s</text>`, float64(marginTop)+ph/2, colorAxis, esc(c.yLabel))
	}
	if finite(c.marker) && c.marker >= xmin && c.marker <= xmax {
		x := px(c.marker)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="4 3"/>`, x, marginTop, x, h-marginBottom, colorAxis)
	}

	// Series: faint ones first.
	order := make([]int, 0, len(c.series))
	for i, s := range c.series {
		if s.faint {
			order = append(order, i)
		}
	}
	for i, s := range c.series {
		if !s.faint {
			order = append(order, i)
		}
	}
	for _, i := range order {
		s := c.series[i]
		color := s.color
		if color == "" {
			color = palette[i%len(palette)]
		}
		sw := s.width
		if sw == 0 {
			sw = 2
		}
		opacity := 1.0
		if s.faint {
			opacity = 0.35
		}
		d := make([]byte, 0, 16*len(s.xs))
		pen := false
		for k := range s.xs {
			x, y := s.xs[k], s.ys[k]
			if !finite(x) || !finite(y) {
				pen = false
				continue
			}
			switch {
			case !pen:
				d = appendXY(append(d, 'M'), ' ', px(x), py(y))
				pen = true
			case s.step:
				d = appendXY(append(d, 'H'), 'V', px(x), py(y))
			default:
				d = appendXY(append(d, 'L'), ' ', px(x), py(y))
			}
		}
		if s.step && pen {
			d = strconv.AppendFloat(append(d, 'H'), px(xmax), 'f', 1, 64)
		}
		if len(d) > 0 {
			fmt.Fprintf(&b, `<path class="series" data-series="%s" d="%s" fill="none" stroke="%s" stroke-width="%g" stroke-opacity="%g" stroke-linejoin="round"/>`, esc(s.name), d, color, sw, opacity)
		}
		if s.dots {
			for k := range s.xs {
				x, y := s.xs[k], s.ys[k]
				if finite(x) && finite(y) {
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.2" fill="%s"><title>%s: %s at %s</title></circle>`, px(x), py(y), color, esc(s.name), fmtNum(y), fmtNum(x))
				}
			}
		}
	}

	// Legend, top right.
	lx := w - marginRight
	for i := len(c.series) - 1; i >= 0; i-- {
		s := c.series[i]
		if s.name == "" {
			continue
		}
		color := s.color
		if color == "" {
			color = palette[i%len(palette)]
		}
		tw := 7*len(s.name) + 22
		lx -= tw
		fmt.Fprintf(&b, `<rect x="%d" y="9" width="12" height="4" fill="%s"/><text x="%d" y="15" font-size="11" fill="#202124">%s</text>`, lx, color, lx+15, esc(s.name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barSegment is one part of a stacked bar.
type barSegment struct {
	name  string
	color string
}

// barChart draws stacked bars, one per x, such as compute and
// communication seconds per round.
type barChart struct {
	title          string
	xLabel, yLabel string
	width, height  int
	xs             []float64
	stacks         [][]float64 // stacks[i][k]: segment k of bar i
	segments       []barSegment
}

func (c barChart) svg() template.HTML {
	w, h := c.width, c.height
	if w == 0 {
		w = 480
	}
	if h == 0 {
		h = 240
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, esc(c.title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="17" font-size="13" font-weight="600" fill="#202124">%s</text>`, marginLeft, esc(c.title))
	if len(c.xs) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="%s">no data yet</text></svg>`, w/2-30, h/2, colorAxis)
		return template.HTML(b.String())
	}
	ymax := 0.0
	for _, st := range c.stacks {
		t := 0.0
		for _, v := range st {
			if finite(v) && v > 0 {
				t += v
			}
		}
		ymax = math.Max(ymax, t)
	}
	if ymax == 0 {
		ymax = 1
	}
	yticks := niceTicks(0, ymax, 5)
	ymax = math.Max(ymax, yticks[len(yticks)-1])
	pw, ph := float64(w-marginLeft-marginRight), float64(h-marginTop-marginBottom)
	py := func(y float64) float64 { return float64(marginTop) + (1-y/ymax)*ph }
	for _, t := range yticks {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`, marginLeft, y, w-marginRight, y, colorGrid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end" fill="%s">%s</text>`, marginLeft-6, y+4, colorAxis, tickLabel(t, yticks))
	}
	n := len(c.xs)
	slot := pw / float64(n)
	bw := math.Max(slot*0.8, 1)
	for i, st := range c.stacks {
		x := marginLeft + slot*float64(i) + (slot-bw)/2
		base := 0.0
		for k, v := range st {
			if !finite(v) || v <= 0 {
				continue
			}
			y0, y1 := py(base), py(base+v)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
				x, y1, bw, math.Max(y0-y1, 0.5), c.segments[k].color, esc(c.xLabel), fmtNum(c.xs[i]), esc(c.segments[k].name+" "+fmtNum(v)))
			base += v
		}
	}
	// x labels: a few of the bars.
	xticks := niceTicks(c.xs[0], c.xs[n-1], 6)
	for _, t := range xticks {
		i := sortSearch(c.xs, t)
		if i < 0 {
			continue
		}
		x := marginLeft + slot*(float64(i)+0.5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>`, x, h-marginBottom+16, colorAxis, tickLabel(t, xticks))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`, marginLeft, h-marginBottom, w-marginRight, h-marginBottom, colorAxis)
	if c.xLabel != "" {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>`, marginLeft+pw/2, h-6, colorAxis, esc(c.xLabel))
	}
	if c.yLabel != "" {
		fmt.Fprintf(&b, `<text transform="translate(13 %.1f) rotate(-90)" font-size="11" text-anchor="middle" fill="%s">%s</text>`, float64(marginTop)+ph/2, colorAxis, esc(c.yLabel))
	}
	lx := w - marginRight
	for k := len(c.segments) - 1; k >= 0; k-- {
		s := c.segments[k]
		lx -= 7*len(s.name) + 22
		fmt.Fprintf(&b, `<rect x="%d" y="7" width="10" height="10" fill="%s"/><text x="%d" y="16" font-size="11" fill="#202124">%s</text>`, lx, s.color, lx+14, esc(s.name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// sortSearch returns the index of x in ascending xs, or -1.
func sortSearch(xs []float64, x float64) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// span is one bar of a timeline.
type span struct {
	lane     int
	from, to time.Time
	color    string
	label    string // the tooltip
	href     string // a link, or ""
	thin     bool   // drawn as a thin bar inside its lane (a stage in a job)
}

// timeline draws spans in lanes against wall time, as Spark's event
// timeline does.
type timeline struct {
	title string
	lanes []string
	spans []span
	from  time.Time
	to    time.Time
	width int
	laneH int
}

func (t timeline) svg() template.HTML {
	w := t.width
	if w == 0 {
		w = 960
	}
	lh := t.laneH
	if lh == 0 {
		lh = 18
	}
	left := 120
	h := marginTop + lh*len(t.lanes) + marginBottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, esc(t.title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`, w, h)
	fmt.Fprintf(&b, `<text x="8" y="17" font-size="13" font-weight="600" fill="#202124">%s</text>`, esc(t.title))
	if len(t.lanes) == 0 || !t.to.After(t.from) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="%s">nothing yet</text></svg>`, left, marginTop+12, colorAxis)
		return template.HTML(b.String())
	}
	total := t.to.Sub(t.from).Seconds()
	pw := float64(w - left - marginRight)
	px := func(tm time.Time) float64 {
		return float64(left) + math.Max(0, math.Min(1, tm.Sub(t.from).Seconds()/total))*pw
	}
	for i, name := range t.lanes {
		y := marginTop + i*lh
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="#f6f8fa"/>`, left, y, pw, lh)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end" fill="#202124">%s</text>`, left-6, y+lh-5, esc(name))
	}
	xticks := niceTicks(0, total, 8)
	for _, s := range xticks {
		if s < 0 || s > total {
			continue
		}
		x := float64(left) + s/total*pw
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`, x, marginTop, x, h-marginBottom, colorGrid)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="%s">%ss</text>`, x, h-marginBottom+15, colorAxis, tickLabel(s, xticks))
	}
	for _, s := range t.spans {
		x0, x1 := px(s.from), px(s.to)
		y, bh := float64(marginTop+s.lane*lh)+3, float64(lh-6)
		if s.thin {
			y, bh = y+bh/2-2, 4
		}
		rect := fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" rx="2"><title>%s</title></rect>`, x0, y, math.Max(x1-x0, 1.5), bh, s.color, esc(s.label))
		if s.href != "" {
			rect = fmt.Sprintf(`<a href="%s">%s</a>`, esc(s.href), rect)
		}
		b.WriteString(rect)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="%s">seconds since %s</text>`, left, h-6, colorAxis, t.from.Format("15:04:05"))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// appendXY appends "X<sep>Y" with one decimal each.
func appendXY(d []byte, sep byte, x, y float64) []byte {
	d = strconv.AppendFloat(d, x, 'f', 1, 64)
	return strconv.AppendFloat(append(d, sep), y, 'f', 1, 64)
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	step := niceStep((hi - lo) / float64(n))
	first := math.Floor(lo/step) * step
	var out []float64
	for v := first; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
		if len(out) > 4*n {
			break
		}
	}
	if out[len(out)-1] < hi {
		out = append(out, out[len(out)-1]+step)
	}
	return out
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	switch f := x / p; {
	case f <= 1:
		return p
	case f <= 2:
		return 2 * p
	case f <= 5:
		return 5 * p
	}
	return 10 * p
}

// tickLabel prints a tick with as many decimals as its step needs.
func tickLabel(v float64, ticks []float64) string {
	step := 1.0
	if len(ticks) > 1 {
		step = ticks[1] - ticks[0]
	}
	if math.Abs(v) < step*1e-9 {
		v = 0
	}
	if a := math.Abs(v); a != 0 && (a < 1e-3 || a >= 1e6) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// fmtNum prints a value for a tooltip.
func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 5, 64)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func esc(s string) string { return html.EscapeString(s) }
