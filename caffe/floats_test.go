package caffe

import (
	"slices"
	"testing"
)

// TestNewFloats checks that newFloats gives zeroed slices of the length
// asked on both sides of the size from which it advises huge pages (the
// kernel package tests HugePageFloats itself), and that a blob of that
// size keeps its values across a reshape to the same count.
func TestNewFloats(t *testing.T) {
	for _, n := range []int{0, 1000, largeFloats - 1, largeFloats, largeFloats + 12345} {
		s := newFloats(n)
		if len(s) != n || slices.ContainsFunc(s, func(v float32) bool { return v != 0 }) {
			t.Fatalf("newFloats(%d): length %d or a value not zero", n, len(s))
		}
	}
	b := NewBlob(2, largeFloats)
	d := b.DataSlice()
	d[len(d)-1] = 7
	b.Reshape(largeFloats, 2)
	if got := b.DataSlice()[2*largeFloats-1]; got != 7 {
		t.Fatalf("after a reshape to the same count: last value %v, want 7", got)
	}
}
