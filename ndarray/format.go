package ndarray

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Printing follows numpy: nested brackets with aligned columns, one format
// for all elements (integers as "3.", fixed or scientific notation as the
// magnitudes need), and the middle of long axes elided with "..." once the
// array has more than PrintThreshold elements.

// PrintThreshold is the element count above which String elides.
var PrintThreshold = 1000

// PrintEdgeItems is how many items String shows at each end of an elided
// axis.
var PrintEdgeItems = 3

// PrintPrecision is the number of digits after the point.
var PrintPrecision = 4

// String returns a header with the shape and the elements numpy-style:
//
//	Array[2 3] float32
//	[[ 1.   2.5 -3. ]
//	 [ 4.   5.   6. ]]
func (a *Array) String() string {
	var b strings.Builder
	b.WriteString(a.Header())
	b.WriteByte('\n')
	b.WriteString(a.Body())
	return b.String()
}

// Header returns the first line of String: shape and element type.
func (a *Array) Header() string {
	return fmt.Sprintf("Array%v float32", a.shape)
}

// Body returns the bracketed elements of String without the header.
func (a *Array) Body() string {
	elide := a.Size() > PrintThreshold
	f := a.formatter(elide)
	var b strings.Builder
	idx := make([]int, 0, len(a.shape))
	a.formatRec(&b, idx, f, elide, 1)
	return b.String()
}

type numFormat struct {
	width int
	fn    func(float32) string
}

// shown visits the elements that String displays.
func (a *Array) shown(elide bool, visit func(float32)) {
	var rec func(idx []int)
	rec = func(idx []int) {
		ax := len(idx)
		if ax == len(a.shape) {
			visit(a.At(idx...))
			return
		}
		for _, i := range shownIndices(a.shape[ax], elide) {
			if i >= 0 {
				rec(append(idx, i))
			}
		}
	}
	if a.Size() > 0 {
		rec(nil)
	}
}

// shownIndices lists the indices of an axis to print; -1 marks the ellipsis.
func shownIndices(n int, elide bool) []int {
	e := PrintEdgeItems
	if !elide || n <= 2*e {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, 2*e+1)
	for i := 0; i < e; i++ {
		out = append(out, i)
	}
	out = append(out, -1)
	for i := n - e; i < n; i++ {
		out = append(out, i)
	}
	return out
}

func (a *Array) formatter(elide bool) numFormat {
	allInt := true
	maxAbs, minAbs := 0.0, math.Inf(1)
	a.shown(elide, func(v float32) {
		x := float64(v)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if x != math.Trunc(x) {
			allInt = false
		}
		ax := math.Abs(x)
		maxAbs = math.Max(maxAbs, ax)
		if ax > 0 {
			minAbs = math.Min(minAbs, ax)
		}
	})
	var fn func(float32) string
	switch {
	case allInt && maxAbs < 1e16:
		fn = func(v float32) string {
			return special(v, func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) + "." })
		}
	case maxAbs >= 1e8 || (minAbs < 1e-4 && minAbs != math.Inf(1)) || (minAbs != math.Inf(1) && maxAbs/minAbs > 1e3):
		fn = func(v float32) string {
			return special(v, func(x float64) string { return strconv.FormatFloat(x, 'e', PrintPrecision, 32) })
		}
	default:
		// Fixed notation with as many decimals as the most precise shown
		// element needs, up to PrintPrecision.
		dec := 0
		a.shown(elide, func(v float32) {
			s := strconv.FormatFloat(float64(v), 'f', PrintPrecision, 32)
			s = strings.TrimRight(s, "0")
			if i := strings.IndexByte(s, '.'); i >= 0 {
				dec = max(dec, len(s)-i-1)
			}
		})
		fn = func(v float32) string {
			return special(v, func(x float64) string {
				s := strconv.FormatFloat(x, 'f', dec, 32)
				if dec == 0 {
					s += "."
				}
				return s
			})
		}
	}
	width := 0
	a.shown(elide, func(v float32) { width = max(width, len(fn(v))) })
	return numFormat{width: width, fn: fn}
}

func special(v float32, f func(float64) string) string {
	x := float64(v)
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return f(x)
}

func (a *Array) formatRec(b *strings.Builder, idx []int, f numFormat, elide bool, indent int) {
	ax := len(idx)
	if ax == len(a.shape) {
		s := f.fn(a.At(idx...))
		b.WriteString(strings.Repeat(" ", f.width-len(s)))
		b.WriteString(s)
		return
	}
	b.WriteByte('[')
	inner := ax == len(a.shape)-1
	for k, i := range shownIndices(a.shape[ax], elide) {
		if k > 0 {
			if inner {
				b.WriteByte(' ')
			} else {
				// blank lines between blocks of higher dimensions, as numpy
				b.WriteString(strings.Repeat("\n", len(a.shape)-ax-1))
				b.WriteString(strings.Repeat(" ", indent))
			}
		}
		if i < 0 {
			b.WriteString("...")
			continue
		}
		a.formatRec(b, append(idx, i), f, elide, indent+1)
	}
	b.WriteByte(']')
}
