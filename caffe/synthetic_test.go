package caffe

import (
	"math"
	"testing"
)

// TestFillSynthetic checks the vector kernels' values against the generator
// stepped one value at a time, across calls of every length remainder.
func TestFillSynthetic(t *testing.T) {
	state, want := uint32(1), uint32(1)
	for _, n := range []int{0, 1, 3, 4, 7, 64, 1001} {
		data := make([]float32, n)
		state = FillSynthetic(data, state)
		for i, v := range data {
			want = want*1664525 + 1013904223
			if w := float32(want>>8) / (1 << 24); math.Float32bits(v) != math.Float32bits(w) {
				t.Fatalf("length %d, value %d: %g, want %g", n, i, v, w)
			}
		}
		if state != want {
			t.Fatalf("length %d: state %d, want %d", n, state, want)
		}
	}
}
