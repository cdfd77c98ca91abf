package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

// fcProduct is one of the fully connected products and the Sgemm call it
// must reproduce bit for bit.
type fcProduct struct {
	name           string
	transA, transB bool
	run            func(parts, part, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

var fcProducts = []fcProduct{
	{"FCForward", false, true, FCForward},
	{"FCInputGrad", false, false, FCInputGrad},
	{"FCWeightGrad", true, false, FCWeightGrad},
}

// fcShapes are (m, n, k) triples: batches 1..100 (and 300, more than a
// block of rows or of depth) on each side the products put them, sizes
// that are not multiples of the tiles, depths of one and of several
// blocks.
func fcShapes() [][3]int {
	var s [][3]int
	for _, batch := range []int{1, 2, 3, 5, 13, 14, 15, 31, 32, 33, 64, 100, 300} {
		for _, nk := range [][2]int{{1, 7}, {17, 33}, {100, 300}, {257, 37}, {45, 600}} {
			big, other := nk[0], nk[1]
			s = append(s,
				[3]int{big, batch, other}, // forward: m = N, n = M, k = K
				[3]int{batch, big, other}, // input gradient: m = M, n = K, k = N
				[3]int{big, other, batch}, // weight gradient: m = N, n = K, k = M
			)
		}
	}
	return append(s, [3]int{40, 20, 2600}, [3]int{20, 2600, 40}, [3]int{3, 1, 1}, [3]int{1, 3, 1})
}

// checkFCProduct runs p on one shape and compares every float of C, the
// gaps between its rows included, with Sgemm's, bit for bit.
func checkFCProduct(t *testing.T, p fcProduct, m, n, k int, beta float32, parts, pad int) {
	t.Helper()
	rng := newRand(uint64(m*1000003 + n*1009 + k + parts))
	ar, ac := m, k
	if p.transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if p.transB {
		br, bc = n, k
	}
	lda, ldb, ldc := ac+pad, bc+pad, n+pad
	a := randSlice(rng, max(0, (ar-1)*lda+ac))
	b := randSlice(rng, max(0, (br-1)*ldb+bc))
	c0 := randSlice(rng, max(0, m*ldc))
	if beta == 0 {
		for i := range c0 {
			if i%ldc < n {
				c0[i] = float32(math.NaN()) // must not be read
			}
		}
	}
	want := append([]float32(nil), c0...)
	Sgemm(p.transA, p.transB, m, n, k, 1, a, lda, b, ldb, beta, want, ldc)
	got := append([]float32(nil), c0...)
	for part := 0; part < parts; part++ {
		p.run(parts, part, m, n, k, a, lda, b, ldb, beta, got, ldc)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s m=%d n=%d k=%d beta=%g parts=%d pad=%d: C[%d][%d] = %g (%#x), Sgemm gives %g (%#x)",
				p.name, m, n, k, beta, parts, pad, i/ldc, i%ldc, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestFCProductsMatchSgemm checks the three products against Sgemm bit
// for bit on every implementation, over odd shapes, strides, betas and
// numbers of parts, with a small packing budget (more chunks), and with
// the small gradients left to Sgemm.
func TestFCProductsMatchSgemm(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, budget := range []int{fcPackBudget, 3000, 0} {
			t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
				defer func(b, s int) { fcPackBudget, fcStreamFrom = b, s }(fcPackBudget, fcStreamFrom)
				if budget == 0 {
					// The sizes that Sgemm computes (small gradients).
					budget = fcPackBudget
				} else {
					fcStreamFrom = 0
				}
				fcPackBudget = budget
				for i, s := range fcShapes() {
					for _, p := range fcProducts {
						beta := []float32{0, 1, 0.5}[i%3]
						parts := 1 + i%3
						pad := []int{0, 3}[i%2]
						checkFCProduct(t, p, s[0], s[1], s[2], beta, parts, pad)
					}
				}
				// A last part of one row (14 + 1, 28 + 1 rows).
				checkFCProduct(t, fcProducts[2], 15, 20, 5, 0.5, 2, 0)
				checkFCProduct(t, fcProducts[2], 29, 20, 5, 1, 2, 1)
				checkFCProduct(t, fcProducts[0], 29, 20, 5, 1, 2, 1)
				// Rows of W 4 KB and 8 KB apart: the forward product's
				// tiles of fcAliasRows rows.
				checkFCProduct(t, fcProducts[0], 45, 32, 1024, 0.5, 2, 0)
				checkFCProduct(t, fcProducts[0], 37, 33, 2045, 1, 1, 3)
			})
		}
	})
}

// TestFCForwardRows checks that each part of FCForward writes exactly
// the rows FCForwardRows names, and the parts cover C in order.
func TestFCForwardRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, s := range append(fcShapes(), [3]int{500, 64, 800}, [3]int{0, 3, 4}) {
			m, n, k := s[0], s[1], s[2]
			rng := newRand(uint64(i))
			a, b := randSlice(rng, m*k), randSlice(rng, n*k)
			for _, parts := range []int{1, 2, 3, 8} {
				next := 0
				for part := range parts {
					c := make([]float32, m*n)
					for j := range c {
						c[j] = float32(math.NaN())
					}
					FCForward(parts, part, m, n, k, a, max(1, k), b, max(1, k), 0, c, max(1, n))
					lo, hi := FCForwardRows(parts, part, m, n, k)
					if lo < hi && lo != next {
						t.Fatalf("m=%d n=%d k=%d part %d of %d: rows [%d, %d), want from %d", m, n, k, part, parts, lo, hi, next)
					}
					if lo < hi {
						next = hi
					}
					for j, v := range c {
						if in := j/n >= lo && j/n < hi; in == (v != v) {
							t.Fatalf("m=%d n=%d k=%d part %d of %d: C[%d][%d] = %v, rows [%d, %d)", m, n, k, part, parts, j/n, j%n, v, lo, hi)
						}
					}
				}
				if m > 0 && next != m {
					t.Fatalf("m=%d n=%d k=%d, %d parts: the rows end at %d", m, n, k, parts, next)
				}
			}
		}
	})
}

// TestTransposeAdd checks TransposeAdd bit for bit against the scalar
// formula on every implementation: sizes below, at and past the vector
// width, strides wider than the matrices, with and without a bias, and
// values −0 (which + 0 turns into +0).
func TestTransposeAdd(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		negZero := float32(math.Copysign(0, -1))
		for _, rows := range []int{1, 3, 16, 17, 40, 500} {
			for _, cols := range []int{1, 7, 8, 9, 16, 31, 64, 65} {
				for _, pad := range []int{0, 5} {
					for _, withBias := range []bool{false, true} {
						rng := newRand(uint64(rows*1000 + cols*10 + pad))
						lds, ldd := cols+pad, rows+pad
						src := randSlice(rng, (rows-1)*lds+cols)
						for i := 0; i < len(src); i += 7 {
							src[i] = negZero
						}
						var bias []float32
						if withBias {
							bias = randSlice(rng, rows)
							bias[0] = 0
						}
						dst := randSlice(rng, (cols-1)*ldd+rows)
						want := append([]float32(nil), dst...)
						for r := range rows {
							var b float32
							if bias != nil {
								b = bias[r]
							}
							for c := range cols {
								want[c*ldd+r] = src[r*lds+c] + b
							}
						}
						TransposeAdd(dst, ldd, src, lds, rows, cols, bias)
						for i := range want {
							if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%d×%d pad %d bias %v: dst[%d] = %g, want %g", rows, cols, pad, withBias, i, dst[i], want[i])
							}
						}
					}
				}
			}
		}
	})
	expectPanic(t, "len(dst)", func() { TransposeAdd(make([]float32, 5), 2, make([]float32, 6), 3, 2, 3, nil) })
	expectPanic(t, "lds", func() { TransposeAdd(make([]float32, 6), 2, make([]float32, 6), 2, 2, 3, nil) })
}

// TestFCProductsBadArguments checks the argument and part checks.
func TestFCProductsBadArguments(t *testing.T) {
	a, b, c := make([]float32, 12), make([]float32, 12), make([]float32, 12)
	expectPanic(t, "part 2 of 2", func() { FCForward(2, 2, 3, 4, 3, a, 3, b, 3, 0, c, 4) })
	expectPanic(t, "lda", func() { FCInputGrad(1, 0, 3, 4, 3, a, 2, b, 4, 0, c, 4) })
	expectPanic(t, "len(c)", func() { FCWeightGrad(1, 0, 4, 4, 3, a, 4, b, 4, 0, c, 4) })
}

// TestFCProductsNoAllocs checks that the products allocate nothing once
// their buffers exist.
func TestFCProductsNoAllocs(t *testing.T) {
	m, n, k := 64, 100, 300
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	for _, p := range fcProducts {
		run := func() { p.run(1, 0, m, n, k, a, max(k, m), b, n, 1, c, n) }
		if p.transA {
			run = func() { p.run(1, 0, m, n, k, a, m, b, n, 1, c, n) }
		} else if p.transB {
			run = func() { p.run(1, 0, m, n, k, a, k, b, k, 1, c, n) }
		} else {
			run = func() { p.run(1, 0, m, n, k, a, k, b, n, 1, c, n) }
		}
		run()
		if allocs, sites := alloctest.Count(10, run); allocs != 0 {
			t.Errorf("%s: %v allocations per call:%s", p.name, allocs, alloctest.String(sites))
		}
	}
}

// fcBenchLayers are fully connected layers at their training batch:
// AlexNet's fc6, fc7 and fc8 (batch 32), LeNet's ip1 (64) and CIFAR-10
// quick's ip1 (100), as batch M, outputs N and inputs K.
var fcBenchLayers = []struct {
	name    string
	m, n, k int
}{
	{"alexnet-fc6", 32, 4096, 9216},
	{"alexnet-fc7", 32, 4096, 4096},
	{"alexnet-fc8", 32, 1000, 4096},
	{"lenet-ip1", 64, 500, 800},
	{"cifar-ip1", 100, 64, 1024},
}

// BenchmarkFC times the three products of each layer with the fully
// connected kernels (path=fc) and with Sgemm (path=sgemm) on one thread,
// reporting GFLOP per second of the thread's CPU time, the share of the
// FMA peak and the weight bytes streamed per second of CPU time (the
// weights read, or for the weight gradient read and written).
//
//	go test -run '^$' -bench FC ./ndarray/kernel
func BenchmarkFC(b *testing.B) {
	for _, l := range fcBenchLayers {
		M, N, K := l.m, l.n, l.k
		rng := newRand(1)
		w, x, dy := randLargeSlice(rng, N*K), randSlice(rng, M*K), randSlice(rng, M*N)
		yT, dx, dw := make([]float32, N*M), make([]float32, M*K), HugePageFloats(N*K)
		wBytes := float64(4 * N * K)
		for _, op := range []struct {
			name  string
			bytes float64
			fc    func()
			gemm  func()
		}{
			{"forward", wBytes,
				func() { FCForward(1, 0, N, M, K, w, K, x, K, 0, yT, M) },
				func() { Sgemm(false, true, N, M, K, 1, w, K, x, K, 0, yT, M) }},
			{"input-grad", wBytes,
				func() { FCInputGrad(1, 0, M, K, N, dy, N, w, K, 0, dx, K) },
				func() { Sgemm(false, false, M, K, N, 1, dy, N, w, K, 0, dx, K) }},
			{"weight-grad", 2 * wBytes,
				func() { FCWeightGrad(1, 0, N, K, M, dy, N, x, K, 1, dw, K) },
				func() { Sgemm(true, false, N, K, M, 1, dy, N, x, K, 1, dw, K) }},
		} {
			for _, path := range []string{"fc", "sgemm"} {
				f := op.fc
				if path == "sgemm" {
					f = op.gemm
				}
				b.Run(fmt.Sprintf("%s/%s/path=%s", l.name, op.name, path), func(b *testing.B) {
					benchFCBytes(b, 2*float64(M*N*K), op.bytes, f)
				})
			}
		}
	}
}

// benchFCBytes is benchFLOPs that also reports bytes streamed per second
// of the thread's CPU time.
func benchFCBytes(b *testing.B, flops, bytes float64, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	peak := MeasurePeak(20 * time.Millisecond)
	f()
	cpu0 := threadCPUTime()
	for b.Loop() {
		f()
	}
	if cpu := threadCPUTime() - cpu0; cpu > 0 {
		rate := flops * float64(b.N) / cpu.Seconds() / 1e9
		b.ReportMetric(rate, "GFLOP/cpu-s")
		b.ReportMetric(100*rate/peak.GFLOPS(), "%peak-cpu")
		b.ReportMetric(bytes*float64(b.N)/cpu.Seconds()/1e9, "GB/cpu-s")
	}
}

// TestFCInputGradBlocks computes the input gradient block by block as
// FCInputGradBlocks describes (the first block into C with beta, the
// others into buffers added to C in order) and compares it with the whole
// product bit for bit, on both of FCInputGrad's paths.
func TestFCInputGradBlocks(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, stream := range []int{fcStreamFrom, 0} {
			defer func(s int) { fcStreamFrom = s }(fcStreamFrom)
			fcStreamFrom = stream
			for i, s := range [][3]int{{64, 800, 500}, {5, 33, 600}, {13, 40, 257}, {64, 20, 2600}, {32, 100, 300}, {1, 50, 600}, {7, 1, 700}} {
				m, n, k := s[0], s[1], s[2]
				beta := []float32{0, 1, 0.5}[i%3]
				rng := newRand(uint64(i + 1))
				a, b := randSlice(rng, m*k), randSlice(rng, k*n)
				c0 := randSlice(rng, m*n)
				want := append([]float32(nil), c0...)
				FCInputGrad(1, 0, m, n, k, a, k, b, n, beta, want, n)
				blocks, size := FCInputGradBlocks(m, n, k, n)
				if m > 1 && n > 1 && k > active.kc && blocks < 2 {
					t.Fatalf("%v: %d blocks of %d", s, blocks, size)
				}
				got := append([]float32(nil), c0...)
				buf := make([]float32, m*n)
				for blk := range blocks {
					lo, hi := blk*size, min(k, (blk+1)*size)
					if blk == 0 {
						FCInputGrad(1, 0, m, n, hi-lo, a[lo:], k, b[lo*n:], n, beta, got, n)
						continue
					}
					FCInputGrad(1, 0, m, n, hi-lo, a[lo:], k, b[lo*n:], n, 0, buf, n)
					Add(got, got, buf)
				}
				for j := range want {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("%v beta %g stream %d: C[%d] = %g by blocks, %g whole", s, beta, stream, j, got[j], want[j])
					}
				}
			}
		}
	})
}

// TestFCForwardPacked checks FCForwardPacked, B packed once by
// FCForwardPack, against FCForward bit for bit, and that the products
// FCForward computes otherwise have no packed size.
func TestFCForwardPacked(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, s := range append(fcShapes(), [3]int{500, 64, 800}) {
			m, n, k := s[0], s[1], s[2]
			size := FCForwardPackSize(m, n, k)
			if n == 1 || size == 0 {
				if n == 1 && size != 0 {
					t.Fatalf("%v: pack size %d for a single column", s, size)
				}
				continue
			}
			beta := []float32{0, 1, 0.5}[i%3]
			rng := newRand(uint64(i + 7))
			a, b := randSlice(rng, m*k), randSlice(rng, n*k)
			c0 := randSlice(rng, m*n)
			want := append([]float32(nil), c0...)
			FCForward(1, 0, m, n, k, a, k, b, k, beta, want, n)
			packed := make([]float32, size)
			FCForwardPack(m, n, k, b, k, packed)
			for _, parts := range []int{1, 3, 8} {
				got := append([]float32(nil), c0...)
				for part := range parts {
					FCForwardPacked(parts, part, m, n, k, a, k, packed, beta, got, n)
				}
				for j := range want {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("%v beta %g parts %d: C[%d] = %g packed once, %g", s, beta, parts, j, got[j], want[j])
					}
				}
			}
		}
		if FCForwardPackSize(40, 20, 1<<20) != 0 {
			t.Error("a B larger than the pack budget has a packed size")
		}
	})
}
