package kernel

import (
	"fmt"
	"testing"
)

// TestPackA compares each implementation's tile packers with the portable
// loops for every tile height and depths around the 16-column chunks.
func TestPackA(t *testing.T) {
	for _, g := range available() {
		if g.packATile == nil {
			continue
		}
		portable := *g
		portable.packATile, portable.packATransTile = nil, nil
		for _, trans := range []bool{false, true} {
			for h := 1; h <= max(g.mr, g.packRows); h++ {
				for _, kb := range []int{1, 5, 15, 16, 17, 32, 33, 70} {
					for _, alpha := range []float32{1, -0.5} {
						t.Run(fmt.Sprintf("%s/trans=%v/h%d/k%d/alpha%g", g.name, trans, h, kb, alpha), func(t *testing.T) {
							// Two tiles (h and h-1 rows) of the block at row 1,
							// column 2 of an A with padded rows that ends
							// exactly where the block does.
							const ic, pc = 1, 2
							mb, tiles := 2*h-1, 2
							if h == 1 {
								mb, tiles = 1, 1
							}
							lda := pc + kb + 3
							n := (ic+mb-1)*lda + pc + kb
							if trans {
								lda = ic + mb + 4
								n = (pc+kb-1)*lda + ic + mb
							}
							a := randSlice(newRand(uint64(h*kb)), n)
							got := make([]float32, mb*kb+1)
							want := make([]float32, mb*kb+1)
							got[mb*kb], want[mb*kb] = sentinel, sentinel
							g.packA(trans, alpha, a, lda, ic, pc, mb, kb, tiles, got)
							portable.packA(trans, alpha, a, lda, ic, pc, mb, kb, tiles, want)
							for i := range want {
								if got[i] != want[i] {
									t.Fatalf("packed[%d] = %g, want %g", i, got[i], want[i])
								}
							}
						})
					}
				}
			}
		}
	}
}

// TestPackBTransPanel compares each implementation's packing of panels of
// a transposed B with the portable loops for every panel width.
func TestPackBTransPanel(t *testing.T) {
	for _, g := range available() {
		portable := *g
		portable.packATile = nil
		for w := 1; w <= g.nr; w++ {
			for _, kb := range []int{1, 16, 21} {
				t.Run(fmt.Sprintf("%s/w%d/k%d", g.name, w, kb), func(t *testing.T) {
					// The panel at column 3, depth 2 of a B stored n×k that
					// ends where the panel does.
					const j0, pc = 3, 2
					ldb := pc + kb + 1
					b := randSlice(newRand(uint64(w*kb)), (j0+w-1)*ldb+pc+kb)
					got := make([]float32, kb*g.nr+1)
					want := make([]float32, kb*g.nr+1)
					for i := range got {
						got[i], want[i] = sentinel, sentinel
					}
					g.packBTransPanel(b, ldb, pc, j0, kb, w, got[:kb*g.nr])
					portable.packBTransPanel(b, ldb, pc, j0, kb, w, want[:kb*g.nr])
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("panel[%d] = %g, want %g", i, got[i], want[i])
						}
					}
				})
			}
		}
	}
}
