package kernel

import "testing"

// TestHugePageFloats checks that HugePageFloats gives zeroed, writable slices
// of the length asked, below and above the size (2 MB) from which it
// advises huge pages.
func TestHugePageFloats(t *testing.T) {
	const page = 2 << 20 / 4 // floats of a huge page
	for _, n := range []int{0, 1, 1000, page - 1, page, page + 12345, 3 * page} {
		s := HugePageFloats(n)
		if len(s) != n {
			t.Fatalf("HugePageFloats(%d): length %d", n, len(s))
		}
		for i, v := range s {
			if v != 0 {
				t.Fatalf("HugePageFloats(%d)[%d] = %v, want 0", n, i, v)
			}
		}
		for i := range s {
			s[i] = float32(i)
		}
		for i, v := range s {
			if v != float32(i) {
				t.Fatalf("HugePageFloats(%d)[%d] = %v after writing %d", n, i, v, i)
			}
		}
	}
}
