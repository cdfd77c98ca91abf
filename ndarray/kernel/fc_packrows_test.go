package kernel

import (
	"math"
	"testing"
)

// TestFCForwardPackRows packs B in runs of panels, in several splits, and
// requires what one FCForwardPack call writes, bit for bit.
func TestFCForwardPackRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, s := range append(fcShapes(), [3]int{500, 64, 800}, [3]int{64, 100, 1024}) {
			m, n, k := s[0], s[1], s[2]
			size := FCForwardPackSize(m, n, k)
			if size == 0 {
				continue
			}
			rng := newRand(uint64(i + 11))
			b := randSlice(rng, n*k)
			junk := randSlice(rng, size) // what the packing does not write stays
			want := append([]float32(nil), junk...)
			FCForwardPack(m, n, k, b, k, want)
			nr := FCForwardPackPanel()
			panels := (n + nr - 1) / nr
			for _, parts := range []int{1, 2, 3} {
				got := append([]float32(nil), junk...)
				for p := range parts {
					lo, hi := p*panels/parts*nr, min(n, (p+1)*panels/parts*nr)
					FCForwardPackRows(m, n, k, b, k, got, lo, hi)
				}
				for j := range want {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("%v in %d parts: packed[%d] = %g, want %g", s, parts, j, got[j], want[j])
					}
				}
			}
		}
	})
}
