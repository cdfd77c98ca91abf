package kernel

import "testing"

// TestLargeFloats checks that largeFloats gives zeroed, writable slices
// of the length asked, below and above the size (2 MB) from which it
// advises huge pages.
func TestLargeFloats(t *testing.T) {
	const page = 2 << 20 / 4 // floats of a huge page
	for _, n := range []int{0, 1, 1000, page - 1, page, page + 12345, 3 * page} {
		s := largeFloats(n)
		if len(s) != n {
			t.Fatalf("largeFloats(%d): length %d", n, len(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("largeFloats(%d)[%d] = %v, want 0", n, i, v)
			}
		}
		for i := range s {
			s[i] = float32(i)
		}
		for i, v := range s {
			if v != float32(i) {
				t.Fatalf("largeFloats(%d)[%d] = %v after writing %d", n, i, v, i)
			}
		}
	}
}
