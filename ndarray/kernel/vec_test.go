package kernel

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparknet-go/sparknet/internal/alloctest"
)

// vecLengths cover the empty slice, every tail length around the vector
// widths (8 and 16 floats) and their unrolled loops (32 and 64).
var vecLengths = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 4099}

func TestVectorOps(t *testing.T) {
	type op struct {
		name string
		run  func(x, y, dst []float32) // result in dst (reductions: dst[0])
		ref  func(x, y, dst []float32)
	}
	ops := []op{
		{"Axpy", func(x, y, d []float32) { copy(d, y); Axpy(-1.5, x, d) }, func(x, y, d []float32) { copy(d, y); axpyRef(-1.5, x, d) }},
		{"Axpby", func(x, y, d []float32) { copy(d, y); Axpby(0.5, x, -2, d) }, func(x, y, d []float32) { copy(d, y); axpbyGo(0.5, x, -2, d) }},
		{"Scale", func(x, y, d []float32) { copy(d, x); Scale(3, d[:len(x)]) }, func(x, y, d []float32) { copy(d, x); scaleRef(3, d[:len(x)]) }},
		{"Add", func(x, y, d []float32) { Add(d, x, y) }, func(x, y, d []float32) { addGo(d, x, y) }},
		{"Mul", func(x, y, d []float32) { Mul(d, x, y) }, func(x, y, d []float32) { mulGo(d, x, y) }},
		{"AddInPlace", func(x, y, d []float32) { copy(d, y); Add(d, x, d) }, func(x, y, d []float32) { copy(d, y); addGo(d, x, d) }},
		{"Dot", func(x, y, d []float32) { d[0] = Dot(x, y) }, func(x, y, d []float32) { d[0] = dotRef(x, y) }},
		{"Sum", func(x, y, d []float32) { d[0] = Sum(x) }, func(x, y, d []float32) { d[0] = sumGo(x) }},
		{"Max", func(x, y, d []float32) {
			if len(x) > 0 {
				d[0] = Max(x)
			}
		}, func(x, y, d []float32) {
			if len(x) > 0 {
				d[0] = maxGo(x)
			}
		}},
	}
	forEachImpl(t, func(t *testing.T) {
		for _, o := range ops {
			for _, n := range vecLengths {
				t.Run(fmt.Sprintf("%s/%d", o.name, n), func(t *testing.T) {
					rng := newRand(uint64(n))
					x, y := randSlice(rng, n), randSlice(rng, n+3)
					// The element after len(x) must stay untouched.
					got := make([]float32, n+3)
					want := make([]float32, n+3)
					for i := range got {
						got[i], want[i] = sentinel, sentinel
					}
					o.run(x, y, got)
					o.ref(x, y, want)
					tol := float32(1e-6) * float32(n+2)
					for i := range got {
						if !close32(got[i], want[i], tol, 2) {
							t.Fatalf("element %d = %g, want %g", i, got[i], want[i])
						}
					}
				})
			}
		}
	})
}

func TestMaxFindsEveryPosition(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{1, 5, 16, 37, 64, 130} {
			for pos := 0; pos < n; pos++ {
				x := make([]float32, n)
				for i := range x {
					x[i] = -float32(i + 1)
				}
				x[pos] = 7
				if m := Max(x); m != 7 {
					t.Fatalf("n=%d: Max with the maximum at %d = %g, want 7", n, pos, m)
				}
			}
		}
	})
}

func TestVectorOpsBadArguments(t *testing.T) {
	x := make([]float32, 4)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"Axpy", func() { Axpy(1, x, x[:3]) }, "Axpy: len(y) = 3, want >= len(x) = 4"},
		{"Axpby", func() { Axpby(1, x, 1, x[:1]) }, "Axpby: len(y) = 1"},
		{"Dot", func() { Dot(x, x[:2]) }, "Dot: len(y) = 2"},
		{"Add", func() { Add(x[:3], x, x) }, "Add: len(dst) = 3"},
		{"Mul", func() { Mul(x, x, nil) }, "Mul: len(y) = 0"},
		{"Max", func() { Max(nil) }, "Max: empty slice"},
		{"SumRows", func() { SumRows(x[:2], x[:3], 2) }, "SumRows: len(x) = 3, want >= 2 rows of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) { expectPanic(t, tc.want, tc.f) })
	}
}

// TestSumRows checks that SumRows adds to each dst[r] what Sum returns
// for row r, bit for bit, on every implementation: row lengths around the
// vector widths and their unrolled loops, row counts, special values (NaN,
// infinities, −0), and the entry after the last row untouched.
func TestSumRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range vecLengths {
			for _, rows := range []int{0, 1, 3, 50} {
				rng := newRand(uint64(n*7 + rows))
				x := randSlice(rng, rows*n+5)
				if n > 2 && rows > 1 {
					x[n+1] = float32(math.NaN())
					x[2*n-1] = float32(math.Inf(-1))
				}
				got, want := randSlice(rng, rows+1), make([]float32, rows+1)
				if rows > 2 {
					got[2] = float32(math.Copysign(0, -1))
				}
				copy(want, got)
				SumRows(got[:rows], x, n)
				for r := range rows {
					want[r] += Sum(x[r*n : (r+1)*n])
				}
				for r := range got {
					if math.Float32bits(got[r]) != math.Float32bits(want[r]) {
						t.Fatalf("n=%d rows=%d: dst[%d] = %v, want %v", n, rows, r, got[r], want[r])
					}
				}
			}
		}
	})
}

func TestSumLargeMagnitudes(t *testing.T) {
	// Mixed signs and magnitudes: the vector sum must stay within the
	// float32 error bound of the exact float64 sum.
	forEachImpl(t, func(t *testing.T) {
		x := randSlice(newRand(5), 10007)
		var exact, mag float64
		for i := range x {
			x[i] *= float32(1 + i%100)
			exact += float64(x[i])
			mag += math.Abs(float64(x[i]))
		}
		if got := Sum(x); math.Abs(float64(got)-exact) > 1e-6*mag {
			t.Errorf("Sum = %g, want %g", got, exact)
		}
	})
}

func TestVectorNoAllocs(t *testing.T) {
	x, y := make([]float32, 300), make([]float32, 300)
	col := make([]float32, 3*9*64)
	img := make([]float32, 3*64)
	for name, f := range map[string]func(){
		"Axpy":   func() { Axpy(2, x, y) },
		"Dot":    func() { Dot(x, y) },
		"Exp":    func() { Exp(y[:299], x[:299]) },
		"Im2col": func() { Im2col(img, 3, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, col) },
		"Col2im": func() { Col2im(col, 3, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, img) },
	} {
		if n, sites := alloctest.Count(20, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0:%s", name, n, alloctest.String(sites))
		}
	}
}

// TestExp compares Exp with math.Exp over the whole float32 range that
// matters: every result must be within 2 ulp (normal results) or within
// the smallest denormal (results below the normal range).
func TestExp(t *testing.T) {
	var xs []float32
	for v := float32(-110); v <= 95; v += 0.0137 {
		xs = append(xs, v)
	}
	rng := newRand(11)
	for range 5000 {
		xs = append(xs, 20*(2*rng.Float32()-1))
	}
	inf := float32(math.Inf(1))
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1, -1, 88.72, 88.73, -87.33, -87.34, -103.9, -104, 1e-8, -1e-8,
		inf, -inf, float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32)
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{len(xs), 1, 7, 15, 16, 17, 33} {
			got := make([]float32, n+1)
			got[n] = sentinel
			Exp(got, xs[:n])
			if got[n] != sentinel {
				t.Fatalf("n=%d: Exp wrote past len(x)", n)
			}
			for i, x := range xs[:n] {
				want := math.Exp(float64(x))
				g := float64(got[i])
				switch {
				case math.IsNaN(want):
					if !math.IsNaN(g) {
						t.Fatalf("Exp(%g) = %g, want NaN", x, g)
					}
				case want > math.MaxFloat32:
					if !math.IsInf(g, 1) {
						t.Fatalf("Exp(%g) = %g, want +Inf", x, g)
					}
				case want < 0x1p-126:
					if math.Abs(g-want) > 0x1p-149 {
						t.Fatalf("Exp(%g) = %g, want %g", x, g, want)
					}
				default:
					ulp := math.Abs(float64(math.Nextafter32(float32(want), inf)) - float64(float32(want)))
					if math.Abs(g-want) > 2*ulp {
						t.Fatalf("Exp(%g) = %g, want %g (%.1f ulp off)", x, g, want, math.Abs(g-want)/ulp)
					}
				}
			}
		}
		// In place.
		x := []float32{0, 1, 2}
		Exp(x, x)
		if x[0] != 1 || !close32(x[2], float32(math.Exp(2)), 1e-6, 8) {
			t.Errorf("Exp in place = %v", x)
		}
	})
}

// TestSGDStep checks the fused step against the passes it replaces, to
// the bit, with and without decay, in every implementation.
// TestSGDStepAhead checks that SGDStepAhead gives SGDStep's bits in
// every implementation and loop, with next a row ahead in the same array
// (as the fully connected layers' update hands it), before h, shorter
// than h (no prefetch) or nil, and leaves next as it was.
func TestSGDStepAhead(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 16, 63, 64, 65, 1000} {
			for _, decay := range []float32{0, 5e-4} {
				for _, at := range []int{n + 3, -n - 5, n / 2, -1} {
					rng := newRand(uint64(n*7 + 3))
					const base = 1100
					hist := randSlice(rng, 3*base)
					w, g := randSlice(rng, n), randSlice(rng, n)
					h := hist[base : base+n]
					var next []float32
					switch {
					case at == -1:
					case at == n/2:
						next = hist[base+at : base+at+n/2] // shorter than h
					default:
						next = hist[base+at : base+at+n]
					}
					next0 := append([]float32(nil), next...)
					ww, wg, wh := append([]float32(nil), w...), append([]float32(nil), g...), append([]float32(nil), h...)
					const rate, momentum = 0.01, 0.9
					SGDStepAhead(w, g, h, next, decay, rate, momentum)
					SGDStep(ww, wg, wh, decay, rate, momentum)
					for i := range w {
						if math.Float32bits(w[i]) != math.Float32bits(ww[i]) || math.Float32bits(g[i]) != math.Float32bits(wg[i]) ||
							math.Float32bits(h[i]) != math.Float32bits(wh[i]) {
							t.Fatalf("n=%d decay=%v next at %d: element %d: w, g, h = %v %v %v, want %v %v %v",
								n, decay, at, i, w[i], g[i], h[i], ww[i], wg[i], wh[i])
						}
					}
					if at != n/2 && at >= n || at < 0 && at != -1 {
						for i := range next {
							if math.Float32bits(next[i]) != math.Float32bits(next0[i]) {
								t.Fatalf("n=%d next at %d: next[%d] changed", n, at, i)
							}
						}
					}
				}
			}
		}
		expectPanic(t, "len(h)", func() {
			SGDStepAhead(make([]float32, 4), make([]float32, 4), make([]float32, 3), nil, 0, 1, 0)
		})
	})
}

func TestSGDStep(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 16, 63, 64, 65, 1000} {
			for _, decay := range []float32{0, 5e-4} {
				rng := newRand(uint64(n))
				w, g, h := randSlice(rng, n), randSlice(rng, n), randSlice(rng, n)
				ww, wg, wh := append([]float32(nil), w...), append([]float32(nil), g...), append([]float32(nil), h...)
				const rate, momentum = 0.01, 0.9
				SGDStep(w, g, h, decay, rate, momentum)
				if decay != 0 {
					Axpy(decay, ww, wg)
				}
				Axpby(rate, wg, momentum, wh)
				copy(wg, wh)
				Axpy(-1, wg, ww)
				for i := range w {
					if math.Float32bits(w[i]) != math.Float32bits(ww[i]) || math.Float32bits(g[i]) != math.Float32bits(wg[i]) ||
						math.Float32bits(h[i]) != math.Float32bits(wh[i]) {
						t.Fatalf("n=%d decay=%v: element %d: w, g, h = %v %v %v, want %v %v %v", n, decay, i, w[i], g[i], h[i], ww[i], wg[i], wh[i])
					}
				}
			}
		}
	})
}

// BenchmarkSumRows times a convolution's bias gradient of a block of 16
// images (LeNet's conv1: 20 planes of 576 floats; conv2: 50 of 64), plane
// by plane with Sum and with SumRows, in CPU µs per block:
//
//	go test -run '^$' -bench SumRows ./ndarray/kernel
func BenchmarkSumRows(b *testing.B) {
	for _, s := range []struct {
		name          string
		planes, plane int
	}{{"lenet-conv1", 20, 576}, {"lenet-conv2", 50, 64}} {
		dy := randSlice(newRand(1), 16*s.planes*s.plane)
		db := make([]float32, s.planes)
		b.Run(s.name+"/sum", func(b *testing.B) {
			benchCPU(b, func() {
				for j := range 16 {
					for c := range s.planes {
						db[c] += Sum(dy[(j*s.planes+c)*s.plane : (j*s.planes+c+1)*s.plane])
					}
				}
			})
		})
		b.Run(s.name+"/rows", func(b *testing.B) {
			benchCPU(b, func() {
				for j := range 16 {
					SumRows(db, dy[j*s.planes*s.plane:(j+1)*s.planes*s.plane], s.plane)
				}
			})
		})
	}
}
