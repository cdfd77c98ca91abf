package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// splitShapes lists small products whose splits (along M when m > n, else
// along N) end in parts of one row or one column, and some that are
// single rows or columns as a whole; k = 300 takes more than one block of
// depth.
func splitShapes() []gemmCase {
	var cases []gemmCase
	add := func(m, n int) {
		for _, k := range []int{5, 300} {
			for tr := 0; tr < 4; tr++ {
				for _, beta := range []float32{0, 1} {
					ta, tb := tr&1 != 0, tr&2 != 0
					cases = append(cases, gemmCase{
						name:   fmt.Sprintf("%dx%dx%d/%s/b%g", m, n, k, transName(ta, tb), beta),
						transA: ta, transB: tb, m: m, n: n, k: k, alpha: 0.75, beta: beta, pad: tr % 2,
					})
				}
			}
		}
	}
	for m := 1; m <= 40; m++ {
		for _, n := range []int{1, 2, 3, 5} {
			add(m, n)
		}
	}
	for n := 1; n <= 70; n++ {
		for _, m := range []int{1, 2, 3} {
			add(m, n)
		}
	}
	return cases
}

// firstBitDiff reports the first element of the m×n window (and its padding)
// where got and want differ in their bits.
func firstBitDiff(tc gemmCase, got, want []float32, ldc int) (int, int, bool) {
	for i := 0; i < tc.m; i++ {
		for j := 0; j < ldc; j++ {
			if math.Float32bits(got[i*ldc+j]) != math.Float32bits(want[i*ldc+j]) {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}

// TestSgemmSplitsMatchOneThread checks that a product computed in the
// parts of every split that threads 1 to 4 give, by SgemmPart or by
// SgemmParallel, equals Sgemm's result bit for bit: the number of threads
// must not change a result, even where a part is a single row or column.
func TestSgemmSplitsMatchOneThread(t *testing.T) {
	splitSmallProducts(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	cases := splitShapes()
	forEachImpl(t, func(t *testing.T) {
		bad := 0
		for ci, tc := range cases {
			a, lda, b, ldb, c0, ldc := tc.operands(uint64(300 + ci))
			want := append([]float32(nil), c0...)
			Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
			c := make([]float32, len(c0))
			for threads := 1; threads <= 4; threads++ {
				sp := SplitSgemm(threads, tc.m, tc.n, tc.k)
				copy(c, c0)
				for p := sp.Parts - 1; p >= 0; p-- {
					SgemmPart(sp, p, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
				}
				if i, j, ok := firstBitDiff(tc, c, want, ldc); !ok {
					t.Errorf("%s: SgemmPart over the %d parts of %d threads (size %d, by rows %v): C[%d][%d] = %x, Sgemm gives %x",
						tc.name, sp.Parts, threads, sp.size, sp.byRows, i, j, math.Float32bits(c[i*ldc+j]), math.Float32bits(want[i*ldc+j]))
					bad++
				}
				copy(c, c0)
				SgemmParallel(threads, tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
				if i, j, ok := firstBitDiff(tc, c, want, ldc); !ok {
					t.Errorf("%s: SgemmParallel on %d threads (%d parts): C[%d][%d] = %x, Sgemm gives %x",
						tc.name, threads, sp.Parts, i, j, math.Float32bits(c[i*ldc+j]), math.Float32bits(want[i*ldc+j]))
					bad++
				}
				if bad > 20 {
					t.Fatal("too many differences")
				}
			}
		}
	})
}

// TestFCProductsSplitsMatchOneThread checks the fully connected products
// in 1 to 4 parts against Sgemm, bit for bit, over small shapes like
// TestSgemmSplitsMatchOneThread's, streaming the weights and not.
func TestFCProductsSplitsMatchOneThread(t *testing.T) {
	var shapes [][2]int
	for m := 1; m <= 40; m++ {
		shapes = append(shapes, [2]int{m, 1}, [2]int{m, 3})
	}
	for n := 1; n <= 70; n++ {
		shapes = append(shapes, [2]int{1, n}, [2]int{2, n})
	}
	forEachImpl(t, func(t *testing.T) {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
				if stream {
					defer func(s int) { fcStreamFrom = s }(fcStreamFrom)
					fcStreamFrom = 0
				}
				for _, s := range shapes {
					for _, k := range []int{5, 300} {
						for _, p := range fcProducts {
							for parts := 1; parts <= 4; parts++ {
								for pad, beta := range []float32{0, 1} {
									checkFCProduct(t, p, s[0], s[1], k, beta, parts, pad)
								}
							}
						}
					}
				}
			})
		}
	})
}
