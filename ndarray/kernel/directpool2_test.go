package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
)

// directPoolGeneral is a convolution, an optional rectifier and a MAX or
// AVE pooling of its output with Caffe's rounded-up output size.
type directPoolGeneral struct {
	conv           directGeom
	kh, kw, sh, sw int
}

var directPoolGenerals = []directPoolGeneral{
	{conv: directGeom{name: "cifar-conv2", n: 16, c: 32, h: 16, w: 16, m: 32, g: 1, kh: 5, kw: 5, p: 2, pw: 2}, kh: 3, kw: 3, sh: 2, sw: 2},
	{conv: directGeom{name: "cifar-conv3", n: 11, c: 32, h: 8, w: 8, m: 64, g: 1, kh: 5, kw: 5, p: 2, pw: 2}, kh: 3, kw: 3, sh: 2, sw: 2},
	{conv: directGeom{name: "odd-3s2", n: 5, c: 6, h: 11, w: 9, m: 7, g: 1, kh: 3, kw: 3, p: 1, pw: 1}, kh: 3, kw: 3, sh: 2, sw: 2},
	{conv: directGeom{name: "overlap-2x3s1", n: 7, c: 4, h: 9, w: 10, m: 6, g: 2, kh: 3, kw: 2, p: 1}, kh: 2, kw: 3, sh: 1, sw: 1},
	{conv: directGeom{name: "gaps", n: 3, c: 5, h: 13, w: 13, m: 5, g: 1, kh: 3, kw: 3, p: 1, pw: 1}, kh: 1, kw: 2, sh: 3, sw: 3},
	{conv: directGeom{name: "lenet-2x2", n: 9, c: 20, h: 12, w: 12, m: 50, g: 1, kh: 5, kw: 5}, kh: 2, kw: 2, sh: 2, sw: 2},
}

// TestDirectPoolGeneral checks NewPool's plans (MAX and AVE, with and
// without a rectifier before them) against Forward, Relu, the plane
// pooling kernels, their backward passes, ReluGrad, LoadGrad,
// BackwardData and WeightGrad, bit for bit, for every implementation, on
// random values, on values with many ties and on values with NaN and
// infinities.
func TestDirectPoolGeneral(t *testing.T) {
	type impl struct {
		name string
		k    *directKernels
		sum  func([]float32) float32 // the implementation's Sum
	}
	impls := []impl{{"go-reference", goDirect, sumGo}}
	for _, im := range available() {
		if im.direct != nil {
			impls = append(impls, impl{im.name, im.direct, im.vec.sum})
		}
	}
	for _, im := range impls {
		for _, pg := range directPoolGenerals {
			for _, method := range []string{"max", "ave"} {
				for _, relu := range []string{"none", "relu", "leaky"} {
					for _, values := range []string{"random", "ties", "nan"} {
						// The portable kernels are slow: CIFAR-10's shapes on
						// the assembly only, and random values only in -short.
						if im.name == "go-reference" && pg.conv.c >= 32 || testing.Short() && values != "random" {
							continue
						}
						t.Run(fmt.Sprintf("%s/%s/%s/%s/%s", im.name, pg.conv.name, method, relu, values), func(t *testing.T) {
							testDirectPoolGeneral(t, im.k, im.sum, pg, method == "ave", relu, values)
						})
					}
				}
			}
		}
	}
}

func testDirectPoolGeneral(t *testing.T, k *directKernels, sum func([]float32) float32, pg directPoolGeneral, ave bool, relu, values string) {
	g := pg.conv
	d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
	oh, ow := d.OutputSize()
	ph, pw := (oh-pg.kh+pg.sh-1)/pg.sh+1, (ow-pg.kw+pg.sw-1)/pg.sw+1
	slope := float32(0)
	if relu == "leaky" {
		slope = 0.125
	}
	p := d.NewPool(ave, pg.kh, pg.kw, pg.sh, pg.sw, ph, pw, relu != "none", slope)
	if p == nil {
		t.Fatal("NewPool: nil")
	}
	L := d.Lanes()
	n := min(L, g.n)
	rng := newRand(19)
	img, out, pout := g.c*g.h*g.w, g.m*oh*ow, g.m*ph*pw
	x := randSlice(rng, n*img)
	w := randSlice(rng, g.m*g.c/g.g*g.kh*g.kw)
	bias := randSlice(rng, g.m)
	switch values {
	case "ties":
		for i := range x {
			x[i] = float32(int(4 * x[i]))
		}
		for i := range w {
			w[i] = float32(int(2 * w[i]))
		}
		bias[0] = 0
	case "nan":
		x[3] = float32(math.NaN())
		x[img+5] = float32(math.Inf(-1))
		x[len(x)-7] = float32(math.Inf(1))
		w[1] = 0
	}
	pdy := randSlice(rng, n*pout)
	pdy[0] = float32(math.Copysign(0, -1))
	if values == "nan" {
		pdy[1] = float32(math.Inf(1))
	}
	d.PackForward(w)
	d.PackBackward(w)

	// The layers one by one.
	s, b := d.NewScratch(), d.NewBlocks(1)
	y := make([]float32, n*out)
	d.Forward(s, b, 0, x, n, y, bias)
	if relu != "none" {
		Relu(y, y, slope)
	}
	py, pmask := make([]float32, n*pout), make([]int32, n*pout)
	dy := make([]float32, n*out)
	for pl := range n * g.m {
		yp, pyp, dyp := y[pl*oh*ow:(pl+1)*oh*ow], py[pl*ph*pw:(pl+1)*ph*pw], dy[pl*oh*ow:(pl+1)*oh*ow]
		if ave {
			AvePoolPlane(pyp, yp, oh, ow, ph, pw, pg.kh, pg.kw, pg.sh, pg.sw)
			AvePoolBackwardPlane(dyp, pdy[pl*ph*pw:(pl+1)*ph*pw], oh, ow, ph, pw, pg.kh, pg.kw, pg.sh, pg.sw)
		} else {
			m := pmask[pl*ph*pw : (pl+1)*ph*pw]
			MaxPoolPlane(pyp, m, yp, oh, ow, ph, pw, pg.kh, pg.kw, pg.sh, pg.sw)
			MaxPoolBackwardPlane(dyp, pdy[pl*ph*pw:(pl+1)*ph*pw], m, oh, ow, ph, pw, pg.kh, pg.kw, pg.sh, pg.sw)
		}
	}
	if relu != "none" {
		ReluGrad(dy, dy, y, slope)
	}
	dx := make([]float32, n*img)
	dw := randSlice(newRand(31), len(w))
	dw0 := append([]float32(nil), dw...)
	d.LoadGrad(s, dy, n)
	d.BackwardData(s, dx, n)
	d.WeightGrad(s, x, dy, n, dw)

	// Fused, twice on the same buffers (what the first leaves behind
	// must not matter), the second time leaving the output unstored.
	s2, b2 := d.NewScratch(), d.NewBlocks(1)
	mask := make([]int32, p.MaskSize())
	for round := range 2 {
		y2, py2 := randSlice(newRand(40), n*out), randSlice(newRand(41), n*pout)
		if round == 0 {
			d.ForwardPool(s2, b2, 0, x, n, y2, bias, p, py2, mask)
			sameBits(t, "y", y2, y)
		} else {
			d.ForwardPool(s2, b2, 0, x, n, nil, bias, p, py2, mask)
		}
		sameBits(t, "pooled", py2, py)
		if !ave {
			m2 := make([]int32, n*pout)
			p.Mask(m2, mask, n)
			for i := range pmask {
				if m2[i] != pmask[i] {
					t.Fatalf("mask[%d] = %d, want %d", i, m2[i], pmask[i])
				}
			}
		}
		dy2 := randSlice(newRand(33), n*out)
		dx2, dw2 := make([]float32, n*img), append([]float32(nil), dw0...)
		d.LoadGradPooled(s2, p, pdy, mask, n, dy2)
		sameBits(t, "dy", dy2, dy)
		if round == 0 {
			d.BackwardData(s2, dx2, n)
			sameBits(t, "dx", dx2, dx)
		}
		if p.General() {
			d.WeightGradLoaded(s2, x, n, dw2)
		} else {
			d.WeightGradPooled(s2, x, p, pdy, mask, n, nil, dw2)
		}
		sameBits(t, "dw", dw2, dw)
		if !p.General() {
			continue
		}
		// No gradient in Caffe's layout: the bias gradient, the sums of
		// dy's planes as Sum adds them image by image, and the same dx
		// and dw from what it left.
		db := randSlice(newRand(34), g.m)
		dbWant := addPlaneSums(append([]float32(nil), db...), dy, n, g.m, oh*ow, sum)
		dx3, dw3 := make([]float32, n*img), append([]float32(nil), dw0...)
		d.LoadGradPooledBias(s2, p, pdy, mask, n, db)
		sameBits(t, "db", db, dbWant)
		if round == 0 {
			d.BackwardData(s2, dx3, n)
			sameBits(t, "dx (bias from the layout)", dx3, dx)
		}
		d.WeightGradLoaded(s2, x, n, dw3)
		sameBits(t, "dw (bias from the layout)", dw3, dw)
	}
}

// TestDirectPoolGeneralKernels compares the assembly kernels of NewPool's
// plans with the portable ones, bit for bit.
func TestDirectPoolGeneralKernels(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		L := k.lanes
		rng := newRand(29)
		src := randSlice(rng, 8192)
		for i := range src {
			switch i % 13 {
			case 0:
				src[i] = src[i+1] // ties
			case 5:
				src[i] = 0
			case 7:
				src[i] = float32(math.Copysign(0, -1))
			}
		}
		src[5] = float32(math.NaN())
		src[L+2] = float32(math.Inf(-1))
		src[2*L+3] = float32(math.Inf(1))
		for _, c := range []struct{ n, kh, kw, sw int }{{1, 1, 1, 1}, {6, 3, 3, 2}, {3, 2, 3, 1}, {4, 1, 2, 3}} {
			t.Run(fmt.Sprintf("%s/%v", im.name, c), func(t *testing.T) {
				pix, row := 4*(3*L), 4*(3*L)*(c.n*c.sw+c.kw+1)
				dstStep, argStep := 4*(2*L), 4*(3*L)
				size := c.kh*row/4 + (c.n*c.sw+c.kw)*pix/4
				for _, slope := range []float32{0, 0.25} {
					got, want := append([]float32(nil), src[:size]...), append([]float32(nil), src[:size]...)
					gotBits, wantBits := make([]int32, 2*c.n*c.sw+3), make([]int32, 2*c.n*c.sw+3)
					k.biasRelu(&got[L], pix, c.n*c.sw+1, &gotBits[1], 8, -0.125, slope)
					goDirectBiasRelu(L)(&want[L], pix, c.n*c.sw+1, &wantBits[1], 8, -0.125, slope)
					sameBits(t, "rectified", got, want)
					for i := range wantBits {
						if gotBits[i] != wantBits[i] {
							t.Fatalf("slope %v: bits[%d] = %#x, want %#x", slope, i, gotBits[i], wantBits[i])
						}
					}
					k.reluGradBits(&got[L], pix, c.n*c.sw+1, &wantBits[1], 8, slope)
					goDirectReluGradBits(L)(&want[L], pix, c.n*c.sw+1, &wantBits[1], 8, slope)
					sameBits(t, "rectified gradient", got, want)
				}
				got, want := make([]float32, c.n*dstStep/4), make([]float32, c.n*dstStep/4)
				k.avePool(&got[0], dstStep, &src[L], pix, row, c.n, c.kh, c.kw, c.sw, 0.25, float32(c.kh*c.kw))
				goDirectPoolAve(L)(&want[0], dstStep, &src[L], pix, row, c.n, c.kh, c.kw, c.sw, 0.25, float32(c.kh*c.kw))
				sameBits(t, "averaged", got, want)
				arg := make([]int32, c.n*argStep/4)
				goDirectPoolMax(L)(&want[0], dstStep, &arg[0], argStep, &src[L], pix, row, c.n, c.kh, c.kw, c.sw, 7, 40, 0.25)
				grad := randSlice(newRand(24), c.n*dstStep/4)
				grad[0] = float32(math.Copysign(0, -1))
				grad[1] = float32(math.Inf(1))
				gotDx := randSlice(newRand(25), size)
				gotDx[3] = float32(math.Copysign(0, -1))
				wantDx := append([]float32(nil), gotDx...)
				k.unpoolAdd(&gotDx[0], pix, row, &grad[0], dstStep, &arg[0], argStep, c.n, c.kh, c.kw, c.sw, 7, 40)
				goDirectUnpoolAdd(L)(&wantDx[0], pix, row, &grad[0], dstStep, &arg[0], argStep, c.n, c.kh, c.kw, c.sw, 7, 40)
				sameBits(t, "routed", gotDx, wantDx)
				sp := randSlice(newRand(26), (c.n*c.sw+c.kw)*2*L)
				sp2 := append([]float32(nil), sp...)
				k.spreadAve(&sp[0], 2*L*4, &grad[0], dstStep, c.n, c.kw, c.sw, 6)
				goDirectSpreadAve(L)(&sp2[0], 2*L*4, &grad[0], dstStep, c.n, c.kw, c.sw, 6)
				sameBits(t, "spread", sp, sp2)
				sp = sp[:(c.n*c.sw+c.kw)*L]
				for _, add := range []bool{false, true} {
					copy(wantDx, gotDx)
					k.putRows(&gotDx[L], pix, row, &sp[0], c.n, c.kh, add)
					goDirectPutRows(L)(&wantDx[L], pix, row, &sp[0], c.n, c.kh, add)
					sameBits(t, fmt.Sprintf("rows (add %v)", add), gotDx, wantDx)
				}
			})
		}
	}
}

// BenchmarkDirectPoolGeneral times a block of CIFAR-10 quick's conv2
// group (convolution, ReLU, AVE 3×3 stride-2 pooling), forward and
// backward, pooled on the interleaved block against the layers one by
// one in Caffe's layout (Forward, Relu, AvePoolPlane; their backward
// passes, LoadGrad, BackwardData, WeightGrad).
func BenchmarkDirectPoolGeneral(b *testing.B) {
	for _, pg := range directPoolGenerals[:2] {
		g := pg.conv
		d := NewDirectConv(g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
		if d == nil {
			b.Skip("no direct convolution")
		}
		oh, ow := d.OutputSize()
		ph, pw := (oh-pg.kh+pg.sh-1)/pg.sh+1, (ow-pg.kw+pg.sw-1)/pg.sw+1
		n := d.Lanes()
		rng := newRand(3)
		img, out, pout := g.c*g.h*g.w, g.m*oh*ow, g.m*ph*pw
		x, w, bias := randSlice(rng, n*img), randSlice(rng, g.m*g.c*g.kh*g.kw), randSlice(rng, g.m)
		pdy := randSlice(rng, n*pout)
		d.PackForward(w)
		d.PackBackward(w)
		s, blk := d.NewScratch(), d.NewBlocks(1)
		y, py, dy, dx, dw := make([]float32, n*out), make([]float32, n*pout), make([]float32, n*out), make([]float32, n*img), make([]float32, len(w))
		for _, mode := range []string{"layers", "blocks"} {
			b.Run(g.name+"/"+mode, func(b *testing.B) {
				p := d.NewPool(true, pg.kh, pg.kw, pg.sh, pg.sw, ph, pw, true, 0)
				mask := make([]int32, p.MaskSize())
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				t0, iters := threadCPUTime(), 0
				defer func() { b.ReportMetric(float64(threadCPUTime()-t0)/float64(max(1, iters)), "cpu-ns/op") }()
				for b.Loop() {
					iters++
					if mode == "blocks" {
						d.ForwardPool(s, blk, 0, x, n, y, bias, p, py, mask)
						d.LoadGradPooled(s, p, pdy, mask, n, dy)
						d.BackwardData(s, dx, n)
						d.WeightGradLoaded(s, x, n, dw)
						continue
					}
					d.Forward(s, blk, 0, x, n, y, bias)
					Relu(y, y, 0)
					for pl := range n * g.m {
						AvePoolPlane(py[pl*ph*pw:(pl+1)*ph*pw], y[pl*oh*ow:(pl+1)*oh*ow], oh, ow, ph, pw, 3, 3, 2, 2)
					}
					for pl := range n * g.m {
						AvePoolBackwardPlane(dy[pl*oh*ow:(pl+1)*oh*ow], pdy[pl*ph*pw:(pl+1)*ph*pw], oh, ow, ph, pw, 3, 3, 2, 2)
					}
					ReluGrad(dy, dy, y, 0)
					d.LoadGrad(s, dy, n)
					d.BackwardData(s, dx, n)
					d.WeightGrad(s, x, dy, n, dw)
				}
			})
		}
	}
}
