package caffe

import "testing"

// TestNewFloats checks that newFloats gives zeroed, writable slices of
// the length asked, below and above the size from which it advises huge
// pages, and that a blob of that size keeps its values across a reshape
// to the same count.
func TestNewFloats(t *testing.T) {
	for _, n := range []int{0, 1, 1000, largeFloats - 1, largeFloats, largeFloats + 12345, 3 * largeFloats} {
		s := newFloats(n)
		if len(s) != n {
			t.Fatalf("newFloats(%d): length %d", n, len(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("newFloats(%d)[%d] = %v, want 0", n, i, v)
			}
		}
		for i := range s {
			s[i] = float32(i)
		}
		for i, v := range s {
			if v != float32(i) {
				t.Fatalf("newFloats(%d)[%d] = %v after writing %d", n, i, v, i)
			}
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
