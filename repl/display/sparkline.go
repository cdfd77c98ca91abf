package display

import (
	"math"
	"strings"
)

var sparkBars = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values as a line of block characters, lowest value at
// the bottom; NaN and infinite values are blanks.
func Sparkline(values []float64) string {
	return SparklineWidth(values, 0)
}

// SparklineWidth is Sparkline with at most width characters (0: one per
// value): longer series are averaged into width buckets.
func SparklineWidth(values []float64, width int) string {
	if width > 0 && len(values) > width {
		values = buckets(values, width)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range values {
		switch {
		case !finite(v):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(sparkBars[len(sparkBars)/2])
		default:
			i := int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBars)-1)))
			b.WriteRune(sparkBars[i])
		}
	}
	return b.String()
}

// buckets averages values into n buckets of nearly equal size, skipping
// values that are not finite.
func buckets(values []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		lo, hi := i*len(values)/n, (i+1)*len(values)/n
		sum, count := 0.0, 0
		for _, v := range values[lo:hi] {
			if finite(v) {
				sum += v
				count++
			}
		}
		out[i] = math.NaN()
		if count > 0 {
			out[i] = sum / float64(count)
		}
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
