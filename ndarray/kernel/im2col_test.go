package kernel

import (
	"fmt"
	"testing"
)

type convCase struct {
	c, h, w          int
	kh, kw           int
	padH, padW       int
	strideH, strideW int
	dilH, dilW       int
}

func (tc convCase) String() string {
	return fmt.Sprintf("c%d_%dx%d_k%dx%d_p%dx%d_s%dx%d_d%dx%d", tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW)
}

func (tc convCase) colLen() int {
	oh := max(0, ConvOutSize(tc.h, tc.kh, tc.padH, tc.strideH, tc.dilH))
	ow := max(0, ConvOutSize(tc.w, tc.kw, tc.padW, tc.strideW, tc.dilW))
	return tc.c * tc.kh * tc.kw * oh * ow
}

var convCases = []convCase{
	{1, 5, 5, 3, 3, 0, 0, 1, 1, 1, 1},
	{3, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1},
	{2, 8, 9, 5, 5, 2, 2, 1, 1, 1, 1},
	{2, 9, 11, 3, 2, 1, 0, 2, 2, 1, 1},
	{1, 11, 11, 11, 11, 0, 0, 4, 4, 1, 1},
	{3, 10, 10, 3, 3, 2, 1, 1, 3, 2, 2},
	{2, 6, 7, 2, 3, 3, 4, 1, 1, 1, 1}, // padding wider than the kernel
	{1, 4, 4, 3, 3, 0, 0, 1, 1, 2, 2}, // dilated kernel as large as the image
	{2, 3, 3, 1, 1, 0, 0, 2, 2, 1, 1}, // 1×1 strided
	{1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1},
	{1, 2, 5, 3, 3, 0, 0, 2, 2, 1, 1}, // no full output row
	{1, 1, 40, 1, 3, 0, 5, 1, 7, 1, 3},
	{2, 5, 37, 3, 3, 1, 1, 1, 1, 1, 1},  // rows of more than one vector
	{1, 6, 70, 3, 4, 2, 3, 1, 2, 1, 1},  // … strided
	{2, 7, 50, 3, 3, 1, 1, 2, 1, 1, 2},  // … dilated
	{1, 2, 300, 1, 3, 0, 1, 1, 1, 1, 1}, // rows longer than 256
	{1, 2, 600, 1, 3, 0, 1, 1, 2, 1, 1}, // … strided
	{3, 12, 12, 5, 5, 0, 0, 1, 1, 1, 1}, // LeNet's conv2
	{2, 8, 8, 5, 5, 2, 2, 1, 1, 1, 1},   // CIFAR-10's conv3
	{2, 9, 21, 3, 3, 2, 3, 1, 1, 2, 3},  // dilated, padded, stride 1
}

func TestIm2col(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, tc := range convCases {
			t.Run(tc.String(), func(t *testing.T) {
				data := randSlice(newRand(uint64(i)), tc.c*tc.h*tc.w)
				n := tc.colLen()
				want := make([]float32, n)
				im2colRef(data, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, want)
				got := make([]float32, n+1)
				for j := range got {
					got[j] = sentinel // Im2col must overwrite, not accumulate
				}
				Im2col(data, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, got)
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("col[%d] = %g, want %g", j, got[j], want[j])
					}
				}
				if got[n] != sentinel {
					t.Errorf("Im2col wrote past the column matrix")
				}
			})
		}
	})
}

func TestCol2im(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, tc := range convCases {
			t.Run(tc.String(), func(t *testing.T) {
				col := randSlice(newRand(uint64(50+i)), tc.colLen())
				size := tc.c * tc.h * tc.w
				want := make([]float32, size)
				col2imRef(col, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, want)
				got := make([]float32, size+1)
				for j := range got {
					got[j] = sentinel
				}
				Col2im(col, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, got)
				for j := range want {
					// Same additions in the same order: the results agree exactly.
					if got[j] != want[j] {
						t.Fatalf("data[%d] = %g, want %g", j, got[j], want[j])
					}
				}
				if got[size] != sentinel {
					t.Errorf("Col2im wrote past the image")
				}
			})
		}
	})
}

// TestCol2imAdjoint checks <Im2col(x), y> == <x, Col2im(y)> for random x
// and y, the defining property of the adjoint.
func TestCol2imAdjoint(t *testing.T) {
	for i, tc := range convCases {
		t.Run(tc.String(), func(t *testing.T) {
			rng := newRand(uint64(90 + i))
			x := randSlice(rng, tc.c*tc.h*tc.w)
			y := randSlice(rng, tc.colLen())
			ax := make([]float32, len(y))
			aty := make([]float32, len(x))
			Im2col(x, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, ax)
			Col2im(y, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, aty)
			var lhs, rhs, scale float64
			for j := range y {
				lhs += float64(ax[j]) * float64(y[j])
				scale += float64(abs32(ax[j]) * abs32(y[j]))
			}
			for j := range x {
				rhs += float64(x[j]) * float64(aty[j])
			}
			if d := lhs - rhs; d > 1e-5*(scale+1) || d < -1e-5*(scale+1) {
				t.Errorf("<Im2col(x), y> = %g, <x, Col2im(y)> = %g", lhs, rhs)
			}
		})
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func TestIm2colBadArguments(t *testing.T) {
	buf := make([]float32, 100)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"stride", func() { Im2col(buf, 1, 3, 3, 2, 2, 0, 0, 0, 1, 1, 1, buf) }, "stride 0×1"},
		{"kernel", func() { Col2im(buf, 1, 3, 3, 0, 2, 0, 0, 1, 1, 1, 1, buf) }, "kernel size 0×2"},
		{"dilation", func() { Im2col(buf, 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, -1, buf) }, "dilation 1×-1"},
		{"pad", func() { Im2col(buf, 1, 3, 3, 2, 2, -1, 0, 1, 1, 1, 1, buf) }, "padding -1×0"},
		{"data", func() { Im2col(buf[:8], 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, buf) }, "len(data) = 8, want >= 9"},
		{"col", func() { Col2im(buf[:15], 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, buf) }, "len(col) = 15, want >= 16"},
	} {
		t.Run(tc.name, func(t *testing.T) { expectPanic(t, tc.want, tc.f) })
	}
}

// TestIm2colLd checks that Im2colLd and Col2imLd with the columns of two
// images side by side give each image's Im2col and Col2im.
func TestIm2colLd(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for i, tc := range convCases {
			t.Run(tc.String(), func(t *testing.T) {
				rng := newRand(uint64(200 + i))
				size, n := tc.c*tc.h*tc.w, tc.colLen()
				if n == 0 {
					return
				}
				rows := tc.c * tc.kh * tc.kw
				cols := n / rows
				imgs := randSlice(rng, 2*size)
				both := make([]float32, 2*n+1)
				both[2*n] = sentinel
				for j := range 2 {
					Im2colLd(imgs[j*size:(j+1)*size], tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, both[j*cols:], 2*cols)
				}
				for j := range 2 {
					want := make([]float32, n)
					Im2col(imgs[j*size:(j+1)*size], tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, want)
					for r := range rows {
						for k := range cols {
							if got := both[r*2*cols+j*cols+k]; got != want[r*cols+k] {
								t.Fatalf("image %d: col[%d][%d] = %g, want %g", j, r, k, got, want[r*cols+k])
							}
						}
					}
					got, ref := make([]float32, size), make([]float32, size)
					Col2imLd(both[j*cols:], 2*cols, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, got)
					Col2im(want, tc.c, tc.h, tc.w, tc.kh, tc.kw, tc.padH, tc.padW, tc.strideH, tc.strideW, tc.dilH, tc.dilW, ref)
					for k := range got {
						if got[k] != ref[k] {
							t.Fatalf("image %d: Col2imLd[%d] = %g, Col2im %g", j, k, got[k], ref[k])
						}
					}
				}
				if both[2*n] != sentinel {
					t.Errorf("Im2colLd wrote past the column matrix")
				}
			})
		}
	})
	expectPanic(t, "ldc = 3, want >= 4", func() {
		Im2colLd(make([]float32, 9), 1, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, make([]float32, 20), 3)
	})
}
