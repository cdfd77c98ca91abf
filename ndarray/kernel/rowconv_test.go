package kernel

import (
	"math"
	"runtime"
	"slices"
	"testing"
)

// rowConvCases are geometries the row convolution takes: channels,
// height, width, outputs, kernel, padding and stride (CIFAR-10 quick's
// first convolution, odd tiles, no padding, two runs of weights,
// AlexNet's first on a narrower image, an odd output height, a row of
// outputs a vector short, AlexNet's rows, single rows in place; then
// images whose weight gradient takes flat rows: a padded stride 2, a
// padded stride 1, odd strides and kernel, AlexNet's first with tiles of
// 8 and 7 output channels on flat rows).
var rowConvCases = []struct{ c, h, w, m, kh, kw, padH, padW, sh, sw int }{
	{3, 32, 32, 32, 5, 5, 2, 2, 1, 1},
	{1, 20, 32, 7, 3, 3, 0, 1, 1, 1},
	{2, 18, 36, 13, 3, 5, 1, 0, 1, 1},
	{4, 8, 32, 40, 9, 9, 4, 4, 1, 1},
	{3, 23, 119, 10, 11, 11, 0, 1, 4, 4},
	{2, 9, 60, 5, 3, 3, 1, 1, 2, 2},
	{3, 6, 31, 8, 3, 3, 1, 1, 1, 1},
	{2, 12, 62, 7, 4, 3, 2, 0, 3, 2},
	{3, 15, 227, 6, 11, 11, 0, 0, 4, 4},
	{1, 4, 64, 3, 3, 3, 1, 1, 1, 1},
	{3, 40, 112, 9, 7, 7, 3, 3, 2, 2},
	{3, 40, 96, 9, 5, 5, 2, 2, 1, 1},
	{3, 30, 128, 7, 5, 6, 1, 2, 3, 2},
	{3, 19, 227, 15, 11, 11, 0, 0, 4, 4},
}

// TestRowConvColumns checks RowConv.Forward against the column path
// (im2col, the blocked product, the bias added), with and without a bias:
// with the kernels of every implementation that has them bit for bit,
// and with the portable reference kernel (which multiplies and adds
// where the assembly fuses them) bit for bit under the portable
// implementation, else to rounding.
func TestRowConvColumns(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		kernels := map[string]*rowKernels{"go-reference": goRowKernels(8, 3, 3, 4)}
		exact := map[string]bool{"go-reference": active == goGemm}
		if k := rowKernelsOf(active); k != nil {
			kernels[active.name], exact[active.name] = k, true
			kernels["go-reference-16"] = goRowKernels(k.lanes, k.mr, k.gmr, k.gnr)
		}
		rng := newRand(7)
		for _, c := range rowConvCases {
			x := randSlice(rng, c.c*c.h*c.w)
			w := randSlice(rng, c.m*c.c*c.kh*c.kw)
			bias := randSlice(rng, c.m)
			oh, ow := ConvOutSize(c.h, c.kh, c.padH, c.sh, 1), ConvOutSize(c.w, c.kw, c.padW, c.sw, 1)
			kk, p := c.c*c.kh*c.kw, oh*ow
			col := make([]float32, kk*p)
			Im2col(x, c.c, c.h, c.w, c.kh, c.kw, c.padH, c.padW, c.sh, c.sw, 1, 1, col)
			want := make([]float32, c.m*p)
			Sgemm(false, false, c.m, p, kk, 1, w, kk, col, p, 0, want, p)
			wantBias := append([]float32(nil), want...)
			ones := make([]float32, p)
			for i := range ones {
				ones[i] = 1
			}
			for j := range c.m {
				Axpy(bias[j], ones, wantBias[j*p:(j+1)*p])
			}
			for name, k := range kernels {
				d := newRowConv(k, c.c, c.h, c.w, c.m, c.kh, c.kw, c.padH, c.padW, c.sh, c.sw)
				if d == nil {
					if k.lanes == 16 && ow < 26 {
						continue // too narrow for pairs of 16
					}
					t.Fatalf("%s: %+v: no plan", name, c)
				}
				d.Pack(w)
				pad := make([]float32, d.ScratchSize())
				got := make([]float32, c.m*p)
				for _, b := range [][]float32{nil, bias} {
					ref := want
					if b != nil {
						ref = wantBias
					}
					d.Forward(pad, x, got, b)
					for i := range got {
						if !exact[name] && close32(got[i], ref[i], 1e-5, 8) {
							continue
						}
						if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
							t.Fatalf("%s: %+v bias %v: y[%d] = %g, want %g (the column path)", name, c, b != nil, i, got[i], ref[i])
						}
					}
					// ForwardReLU: Forward's values through Relu, bit for
					// bit, with slope 0 and a leaky slope.
					for _, slope := range []float32{0, 0.1} {
						wantR := make([]float32, len(got))
						Relu(wantR, got, slope)
						gotR := make([]float32, len(got))
						d.ForwardReLU(pad, x, gotR, b, slope)
						for i := range gotR {
							if math.Float32bits(gotR[i]) != math.Float32bits(wantR[i]) {
								t.Fatalf("%s: %+v bias %v slope %g: ForwardReLU y[%d] = %g, want %g (Forward, Relu)", name, c, b != nil, slope, i, gotR[i], wantR[i])
							}
						}
					}
				}
			}
		}
	})
}

// goRowKernels returns the portable reference kernels with the given
// vector width and tiles.
func goRowKernels(lanes, mr, gmr, gnr int) *rowKernels {
	return &rowKernels{lanes: lanes, mr: mr, conv: rowConvGo(lanes), gmr: gmr, gnr: gnr, grad: rowGradGo(lanes, gnr),
		gradT: rowGradTGo(lanes, gnr), gtm: gmr, trans: interleaveGo(lanes),
		flat: rowFlatGo(lanes, 3), fmr: mr + 2, fnv: 3}
}

// TestRowConvWeightGrad checks RowConv.WeightGrad, with the kernels of
// every implementation that has them and the portable reference kernels,
// against the weight gradient summed in float64, for a few images,
// added to what dw holds, and that Forward still gives the column path's
// values on the same scratch afterwards.
func TestRowConvWeightGrad(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		kernels := map[string]*rowKernels{"go-reference": goRowKernels(8, 3, 3, 4)}
		if k := rowKernelsOf(active); k != nil {
			kernels[active.name] = k
			kernels["go-reference-16"] = goRowKernels(k.lanes, k.mr, k.gmr, k.gnr)
		}
		rng := newRand(9)
		for _, c := range rowConvCases {
			const n = 3
			x := randSlice(rng, n*c.c*c.h*c.w)
			oh, ow := ConvOutSize(c.h, c.kh, c.padH, c.sh, 1), ConvOutSize(c.w, c.kw, c.padW, c.sw, 1)
			dy := randSlice(rng, n*c.m*oh*ow)
			kk := c.c * c.kh * c.kw
			want := make([]float64, c.m*kk)
			for j := range n {
				for m := range c.m {
					for ch := range c.c {
						for ki := range c.kh {
							for kj := range c.kw {
								var s float64
								for oy := range oh {
									for ox := range ow {
										iy, ix := oy*c.sh+ki-c.padH, ox*c.sw+kj-c.padW
										if iy < 0 || iy >= c.h || ix < 0 || ix >= c.w {
											continue
										}
										s += float64(dy[((j*c.m+m)*oh+oy)*ow+ox]) * float64(x[((j*c.c+ch)*c.h+iy)*c.w+ix])
									}
								}
								want[m*kk+(ch*c.kh+ki)*c.kw+kj] += s
							}
						}
					}
				}
			}
			for name, k := range kernels {
				d := newRowConv(k, c.c, c.h, c.w, c.m, c.kh, c.kw, c.padH, c.padW, c.sh, c.sw)
				if d == nil {
					continue // TestRowConvColumns checks which geometries are planned
				}
				scratch := make([]float32, d.ScratchSize())
				dw := make([]float32, c.m*kk)
				for i := range dw {
					dw[i] = 1
				}
				var db []float32
				if d.GradBias() {
					db = make([]float32, c.m)
					for i := range db {
						db[i] = 1
					}
				}
				d.GradBegin(scratch)
				d.GradAdd(scratch, x, dy, n)
				d.GradEnd(scratch, dw, db)
				for i := range dw {
					if w := want[i] + 1; math.Abs(float64(dw[i])-w) > 1e-4*math.Sqrt(float64(n*oh*ow)) {
						t.Fatalf("%s: %+v: dw[%d] = %g, want %g", name, c, i, dw[i], w)
					}
				}
				if d.GradBias() != (d.kp > kk) {
					t.Fatalf("%s: %+v: GradBias %v with %d weights in %d places", name, c, d.GradBias(), kk, d.kp)
				}
				for m := range db {
					w := 1.0
					for j := range n {
						for _, v := range dy[(j*c.m+m)*oh*ow : (j*c.m+m+1)*oh*ow] {
							w += float64(v)
						}
					}
					if math.Abs(float64(db[m])-w) > 1e-4*math.Sqrt(float64(n*oh*ow)) {
						t.Fatalf("%s: %+v: db[%d] = %g, want %g", name, c, m, db[m], w)
					}
				}
				// Forward on the same scratch, against a fresh one.
				w, bias := randSlice(rng, c.m*kk), randSlice(rng, c.m)
				d.Pack(w)
				got, ref := make([]float32, c.m*oh*ow), make([]float32, c.m*oh*ow)
				d.Forward(scratch, x, got, bias)
				d.Forward(make([]float32, d.ScratchSize()), x, ref, bias)
				for i := range ref {
					if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
						t.Fatalf("%s: %+v: Forward after WeightGrad: y[%d] = %g, want %g", name, c, i, got[i], ref[i])
					}
				}
			}
		}
	})
}

// TestRowConvGradTKernels checks the kernels of the flat weight gradient
// (rowKernels.gradT) of every implementation that has them against the
// portable reference, for each tile of output channels, over several
// rows of pixels with a gap between them, added to what acc holds.
func TestRowConvGradTKernels(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		k := rowKernelsOf(active)
		if k == nil || k.gradT == nil {
			t.Skip("no flat weight gradient kernels")
		}
		ref := rowGradTGo(k.lanes, k.gnr)
		rng := newRand(11)
		const f, nrows, npix, skip = 4, 3, 7, 2
		for mr := 1; mr <= k.gtm; mr++ {
			step := (mr + 1) * k.lanes // a gap past the channels
			dy := randSlice(rng, nrows*npix*step)
			x := randSlice(rng, 200)
			offs := []int32{0, 4 * 9, 4 * 40, 4 * 41}[:k.gnr]
			accRow := (mr*k.lanes + 3) * f
			got := randSlice(rng, k.gnr*accRow/f)
			want := slices.Clone(got)
			k.gradT(mr, &dy[0], step*f, &x[0], &offs[0], skip*f, nrows, npix, &got[0], accRow)
			ref(mr, &dy[0], step*f, &x[0], &offs[0], skip*f, nrows, npix, &want[0], accRow)
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-5 {
					t.Fatalf("mr %d: acc[%d] = %g, want %g", mr, i, got[i], want[i])
				}
			}
		}
	})
}

// TestRowConvDeclines checks the geometries the row convolution does not
// take.
func TestRowConvDeclines(t *testing.T) {
	k := goRowKernels(8, 3, 3, 4)
	for _, c := range []struct{ c, h, w, m, kh, kw, padH, padW, sh, sw int }{
		{3, 32, 8, 8, 3, 3, 1, 1, 1, 1},  // rows of 8 in pairs of 8-float vectors
		{3, 32, 50, 8, 3, 3, 1, 1, 1, 1}, // rows of 50 in 64
		{3, 2, 2, 8, 5, 5, 0, 0, 1, 1},   // empty output
		{0, 32, 32, 8, 5, 5, 2, 2, 1, 1}, // no channels
		{3, 32, 32, 8, 5, 5, 2, 2, 0, 1}, // no stride
	} {
		if d := newRowConv(k, c.c, c.h, c.w, c.m, c.kh, c.kw, c.padH, c.padW, c.sh, c.sw); d != nil {
			t.Errorf("%+v: got a plan, want none", c)
		}
	}
}

// TestDeinterleave4 checks the stride-4 split of a row by every
// implementation's kernels (blocks of quads, the rest by the loop)
// against the portable loop alone, for phases of equal and unequal
// lengths around the blocks' sizes, the values copied bit for bit.
func TestDeinterleave4(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		k := rowKernelsOf(active)
		if k == nil {
			k = goRowKernels(8, 3, 3, 4)
		}
		rng := newRand(3)
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 56, 57, 100} {
			for extra := range 4 {
				// Phase k holds n values, one more for k < extra.
				src := randSlice(rng, 4*n+extra)
				var got, want [4][]float32
				for ph := range 4 {
					l := n
					if ph < extra {
						l++
					}
					got[ph], want[ph] = make([]float32, l+2), make([]float32, l+2)
					got[ph], want[ph] = got[ph][1:l+1], want[ph][1:l+1]
				}
				deinterleave4(k, &got, src)
				deinterleave4(nil, &want, src)
				for ph := range 4 {
					for i, v := range want[ph] {
						if v != src[4*i+ph] {
							t.Fatalf("n=%d extra=%d: reference phase %d [%d] = %v, want %v", n, extra, ph, i, v, src[4*i+ph])
						}
						if math.Float32bits(got[ph][i]) != math.Float32bits(v) {
							t.Fatalf("n=%d extra=%d: phase %d [%d] = %v, want %v", n, extra, ph, i, got[ph][i], v)
						}
					}
					if g := got[ph][:cap(got[ph])]; g[len(got[ph])] != 0 {
						t.Fatalf("n=%d extra=%d: phase %d written past its end", n, extra, ph)
					}
				}
			}
		}
	})
}

// BenchmarkRowConv times RowConv.Forward and WeightGrad on one image of
// the first convolutions of CIFAR-10 quick and AlexNet, reporting the
// share of the FMA peak (the output's FLOPs, not the rows' padding), and
// the flat copy of AlexNet's image:
//
//	go test -run '^$' -bench RowConv ./ndarray/kernel
func BenchmarkRowConv(b *testing.B) {
	for _, s := range []struct {
		name                                   string
		c, h, w, m, kh, kw, padH, padW, sh, sw int
	}{
		{"cifar-conv1", 3, 32, 32, 32, 5, 5, 2, 2, 1, 1},
		{"alexnet-conv1", 3, 227, 227, 96, 11, 11, 0, 0, 4, 4},
	} {
		b.Run(s.name, func(b *testing.B) {
			d := NewRowConv(s.c, s.h, s.w, s.m, s.kh, s.kw, s.padH, s.padW, s.sh, s.sw)
			if d == nil {
				b.Skip("no row convolution with these kernels")
			}
			rng := newRand(1)
			x, w, bias := randSlice(rng, s.c*s.h*s.w), randSlice(rng, s.m*d.kk), randSlice(rng, s.m)
			y := make([]float32, s.m*d.oh*d.ow)
			scratch := make([]float32, d.ScratchSize())
			d.Pack(w)
			flops := 2 * float64(s.m*d.kk*d.oh*d.ow)
			b.Run("forward", func(b *testing.B) {
				benchFLOPs(b, flops, func() { d.Forward(scratch, x, y, bias) })
			})
			if d.flat {
				// The flat copy of the image that both passes make,
				// CPU nanoseconds per image.
				b.Run("copy", func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					xf := scratch[d.xSize:][:d.fxSize]
					cpu0 := threadCPUTime()
					for b.Loop() {
						d.loadFlat(xf, x)
					}
					b.ReportMetric(float64(threadCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
				})
			}
			b.Run("weights", func(b *testing.B) {
				// A chunk of 8 images, as the layers pass.
				const n = 8
				xs, dys := make([]float32, 0, n*len(x)), make([]float32, 0, n*len(y))
				for range n {
					xs, dys = append(xs, x...), append(dys, y...)
				}
				dw := make([]float32, len(w))
				benchFLOPs(b, n*flops, func() { d.WeightGrad(scratch, xs, dys, n, dw) })
			})
		})
	}
}
