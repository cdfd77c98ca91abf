package kernel

import (
	"math"
	"testing"
)

// rowConvCases are geometries the row convolution takes: channels,
// height, width, outputs, kernel and padding (CIFAR-10 quick's first
// convolution, odd tiles, no padding, and the most weights it takes).
var rowConvCases = []struct{ c, h, w, m, kh, kw, padH, padW int }{
	{3, 32, 32, 32, 5, 5, 2, 2},
	{1, 20, 32, 7, 3, 3, 0, 1},
	{2, 18, 36, 13, 3, 5, 1, 0},
	{4, 8, 32, 40, 7, 7, 3, 3},
}

// TestRowConvColumns checks RowConv.Forward against the column path
// (im2col, the blocked product, the bias added), with and without a bias:
// with the kernels of every implementation that has them bit for bit,
// and with the portable reference kernel (which multiplies and adds
// where the assembly fuses them) bit for bit under the portable
// implementation, else to rounding.
func TestRowConvColumns(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		kernels := map[string]*rowKernels{"go-reference": {lanes: 8, mr: 3, conv: rowConvGo(8)}}
		exact := map[string]bool{"go-reference": active == goGemm}
		if k := rowKernelsOf(active); k != nil {
			kernels[active.name], exact[active.name] = k, true
			kernels["go-reference-16"] = &rowKernels{lanes: k.lanes, mr: k.mr, conv: rowConvGo(k.lanes)}
		}
		rng := newRand(7)
		for _, c := range rowConvCases {
			x := randSlice(rng, c.c*c.h*c.w)
			w := randSlice(rng, c.m*c.c*c.kh*c.kw)
			bias := randSlice(rng, c.m)
			oh, ow := ConvOutSize(c.h, c.kh, c.padH, 1, 1), ConvOutSize(c.w, c.kw, c.padW, 1, 1)
			kk, p := c.c*c.kh*c.kw, oh*ow
			col := make([]float32, kk*p)
			Im2col(x, c.c, c.h, c.w, c.kh, c.kw, c.padH, c.padW, 1, 1, 1, 1, col)
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
				d := newRowConv(k, c.c, c.h, c.w, c.m, c.kh, c.kw, c.padH, c.padW)
				if d == nil {
					t.Fatalf("%s: %+v: no plan", name, c)
				}
				d.Pack(w)
				pad := make([]float32, d.PaddedSize())
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
				}
			}
		}
	})
}

// TestRowConvDeclines checks the geometries the row convolution does not
// take.
func TestRowConvDeclines(t *testing.T) {
	k := &rowKernels{lanes: 8, mr: 3, conv: rowConvGo(8)}
	for _, c := range []struct{ c, h, w, m, kh, kw, padH, padW int }{
		{3, 31, 32, 8, 5, 5, 2, 2}, // odd output height
		{3, 32, 30, 8, 5, 5, 2, 2}, // width not a multiple of two vectors
		{16, 8, 16, 8, 5, 5, 2, 2}, // more weights than a block of the product
		{3, 2, 2, 8, 5, 5, 0, 0},   // empty output
		{0, 32, 32, 8, 5, 5, 2, 2}, // no channels
	} {
		if d := newRowConv(k, c.c, c.h, c.w, c.m, c.kh, c.kw, c.padH, c.padW); d != nil {
			t.Errorf("%+v: got a plan, want none", c)
		}
	}
}
