package kernel

import (
	"fmt"
	"math"
	"testing"
)

// TestFCWeightGradRows checks that the rows FCWeightGradRows gives for
// each part are exactly the rows that part of FCWeightGrad writes, that
// the parts cover C once, and that writing (beta 0) gives the bits of
// adding to a cleared C, zeros included.
func TestFCWeightGradRows(t *testing.T) {
	for _, sz := range [][3]int{{1, 40, 8}, {7, 33, 5}, {64, 70, 3}, {500, 300, 16}, {29, 2100, 64}} {
		m, n, k := sz[0], sz[1], sz[2]
		rng := newRand(uint64(m + n + k))
		a, b := randSlice(rng, k*m), randSlice(rng, k*n)
		for i := range b {
			if i%n%5 == 0 {
				b[i] = 0 // columns of products ±0 whose sums must be +0
			}
		}
		for _, parts := range []int{1, 2, 3, 8, 40} {
			covered := make([]int, m)
			cleared := make([]float32, m*n)
			for p := range parts {
				FCWeightGrad(parts, p, m, n, k, a, m, b, n, 1, cleared, n)
			}
			for p := range parts {
				c := make([]float32, m*n)
				for i := range c {
					c[i] = float32(math.NaN())
				}
				FCWeightGrad(parts, p, m, n, k, a, m, b, n, 0, c, n)
				lo, hi := FCWeightGradRows(parts, p, m, n, k)
				for i := range m {
					row := c[i*n : (i+1)*n]
					in := lo <= i && i < hi
					if in {
						covered[i]++
					}
					for j, v := range row {
						written := !math.IsNaN(float64(v))
						if written != in {
							t.Fatalf("%d×%d×%d, part %d of %d (rows [%d, %d)): row %d column %d written = %v", m, n, k, p, parts, lo, hi, i, j, written)
						}
						if in && math.Float32bits(v) != math.Float32bits(cleared[i*n+j]) {
							t.Fatalf("%d×%d×%d, part %d of %d: C[%d][%d] = %v written, %v added to zero", m, n, k, p, parts, i, j, v, cleared[i*n+j])
						}
					}
				}
			}
			for i, c := range covered {
				if c != 1 {
					t.Fatalf("%d×%d×%d in %d parts: row %d in %d parts", m, n, k, parts, i, c)
				}
			}
		}
	}
}

// TestFCWeightGradSpan checks that FCWeightGradSpan over each part's rows
// (FCWeightGradRows) and over runs of row tiles cut anywhere writes into
// its buffer the bits FCWeightGrad writes into the same rows of C, streamed
// and left to Sgemm, with beta 0 and 1, on every implementation.
func TestFCWeightGradSpan(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		tile := FCRowTile()
		for _, stream := range []int{fcStreamFrom, 0} {
			defer func(s int) { fcStreamFrom = s }(fcStreamFrom)
			fcStreamFrom = stream
			for _, sz := range [][3]int{{1, 40, 8}, {7, 33, 5}, {64, 70, 3}, {500, 300, 16}, {29, 2100, 64}, {40, 20, 300}} {
				m, n, k := sz[0], sz[1], sz[2]
				ldc := n + 3
				rng := newRand(uint64(m + n + k))
				a, b, c0 := randSlice(rng, k*m), randSlice(rng, k*n), randSlice(rng, m*ldc)
				for _, beta := range []float32{0, 1} {
					// check computes rows [lo, hi) with into and compares them.
					check := func(want []float32, lo, hi int, what string, into func(buf []float32)) {
						buf := make([]float32, max(0, hi-lo)*ldc)
						if lo < hi {
							copy(buf, c0[lo*ldc:])
						}
						into(buf)
						for i := range buf {
							if i%ldc < n && math.Float32bits(buf[i]) != math.Float32bits(want[lo*ldc+i]) {
								t.Fatalf("%d×%d×%d beta %g, %s: C[%d][%d] = %v, FCWeightGrad gives %v",
									m, n, k, beta, what, lo+i/ldc, i%ldc, buf[i], want[lo*ldc+i])
							}
						}
					}
					for _, parts := range []int{1, 2, 3, 8, 40} {
						want := append([]float32(nil), c0...)
						for p := range parts {
							FCWeightGrad(parts, p, m, n, k, a, m, b, n, beta, want, ldc)
						}
						for p := range parts {
							lo, hi := FCWeightGradRows(parts, p, m, n, k)
							check(want, lo, hi, fmt.Sprintf("part %d of %d", p, parts), func(buf []float32) {
								FCWeightGradSpan(lo, hi, m, n, k, a, m, b, n, beta, buf, ldc)
							})
						}
						if parts > 1 {
							continue
						}
						// Runs of 1, 2, 3, … tiles, the last run to the end.
						for lo, size := 0, 1; lo < m; lo, size = lo+size*tile, size+1 {
							hi := min(m, lo+size*tile)
							if m == 1 {
								hi = m
							}
							check(want, lo, hi, fmt.Sprintf("span [%d, %d)", lo, hi), func(buf []float32) {
								FCWeightGradSpan(lo, hi, m, n, k, a, m, b, n, beta, buf, ldc)
							})
						}
					}
				}
			}
		}
	})
}

// TestFCWeightGradSpanTiles checks that FCWeightGradSpan refuses rows that
// do not start a row tile.
func TestFCWeightGradSpanTiles(t *testing.T) {
	if FCRowTile() == 1 {
		t.Skip("row tiles of one row")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("FCWeightGradSpan took rows starting within a row tile")
		}
	}()
	FCWeightGradSpan(1, 2, 64, 8, 4, make([]float32, 4*64), 64, make([]float32, 4*8), 8, 0, make([]float32, 8), 8)
}
