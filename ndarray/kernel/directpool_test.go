package kernel

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"unsafe"
)

// directPoolGeom is a convolution and the max pooling of its output.
type directPoolGeom struct {
	conv           directGeom
	kh, kw, sh, sw int
}

var directPoolGeoms = []directPoolGeom{
	{conv: directGeom{name: "lenet-conv1", n: 16, c: 1, h: 28, w: 28, m: 20, g: 1, kh: 5, kw: 5}, kh: 2, kw: 2, sh: 2, sw: 2},
	{conv: directGeom{name: "lenet-conv2", n: 13, c: 20, h: 12, w: 12, m: 50, g: 1, kh: 5, kw: 5}, kh: 2, kw: 2, sh: 2, sw: 2},
	{conv: directGeom{name: "odd-3x3", n: 5, c: 3, h: 9, w: 9, m: 7, g: 1, kh: 3, kw: 3, p: 1, pw: 1}, kh: 3, kw: 3, sh: 3, sw: 3},
	{conv: directGeom{name: "gaps", n: 7, c: 4, h: 11, w: 9, m: 6, g: 2, kh: 3, kw: 2, p: 1}, kh: 1, kw: 2, sh: 2, sw: 3},
	// Rows between windows, planes of whole vectors of the sums, and tiles
	// of two heights: the bands that the weight gradient routes the
	// gradient into are cleared.
	{conv: directGeom{name: "gaps-bands", n: 5, c: 2, h: 11, w: 16, m: 7, g: 1, kh: 3, kw: 3, p: 1, pw: 1}, kh: 1, kw: 2, sh: 2, sw: 2},
}

// poolPlanes max-pools planes of h×w values by Caffe's rule (the first
// maximal element wins, values not above −MaxFloat32 never do).
func poolPlanes(x []float32, planes, h, w, kh, kw, sh, sw, ph, pw int) ([]float32, []int32) {
	y, mask := make([]float32, planes*ph*pw), make([]int32, planes*ph*pw)
	for p := range planes {
		for r := range ph {
			for c := range pw {
				best, idx := float32(-math.MaxFloat32), int32(-1)
				for i := range kh {
					for j := range kw {
						at := (r*sh+i)*w + c*sw + j
						if v := x[p*h*w+at]; v > best {
							best, idx = v, int32(at)
						}
					}
				}
				y[(p*ph+r)*pw+c], mask[(p*ph+r)*pw+c] = best, idx
			}
		}
	}
	return y, mask
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %v (%#x), want %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestDirectPool checks ForwardPool, Mask, LoadGradPooled and
// WeightGradFromPooled against Forward, the pooling of its stored output,
// Caffe's backward pass of the pooling, LoadGrad, WeightGrad and
// WeightGradFrom, bit for bit, for every implementation, on random values,
// on values with many ties and on values with NaN and −Inf.
func TestDirectPool(t *testing.T) {
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
		for _, pg := range directPoolGeoms {
			for _, values := range []string{"random", "ties", "nan"} {
				t.Run(fmt.Sprintf("%s/%s/%s", im.name, pg.conv.name, values), func(t *testing.T) {
					testDirectPool(t, im.k, im.sum, pg, values)
				})
			}
		}
	}
}

func testDirectPool(t *testing.T, k *directKernels, sum func([]float32) float32, pg directPoolGeom, values string) {
	g := pg.conv
	d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
	oh, ow := d.OutputSize()
	ph, pw := (oh-pg.kh+pg.sh-1)/pg.sh+1, (ow-pg.kw+pg.sw-1)/pg.sw+1
	p := d.NewMaxPool(pg.kh, pg.kw, pg.sh, pg.sw, ph, pw)
	if p == nil {
		t.Fatal("NewMaxPool: nil")
	}
	L := d.Lanes()
	n := min(L, g.n)
	rng := newRand(17)
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
	d.PackForward(w)
	d.PackBackward(w)

	// The layers one by one.
	s, b := d.NewScratch(), d.NewBlocks(1)
	y := make([]float32, n*out)
	d.Forward(s, b, 0, x, n, y, bias)
	py, pmask := poolPlanes(y, n*g.m, oh, ow, pg.kh, pg.kw, pg.sh, pg.sw, ph, pw)
	dy := make([]float32, n*out)
	for pl := range n * g.m {
		MaxPoolBackward(dy[pl*oh*ow:(pl+1)*oh*ow], pdy[pl*ph*pw:(pl+1)*ph*pw], pmask[pl*ph*pw:(pl+1)*ph*pw], true)
	}
	dx := make([]float32, n*img)
	dw := randSlice(newRand(31), len(w))
	dw0 := append([]float32(nil), dw...)
	d.LoadGrad(s, dy, n)
	d.BackwardData(s, dx, n)
	d.WeightGrad(s, x, dy, n, dw)

	// Fused.
	s2, b2 := d.NewScratch(), d.NewBlocks(1)
	y2, py2, mask := make([]float32, n*out), make([]float32, n*pout), make([]int32, p.MaskSize())
	d.ForwardPool(s2, b2, 0, x, n, y2, bias, p, py2, mask)
	sameBits(t, "y", y2, y)
	sameBits(t, "pooled", py2, py)
	m2 := make([]int32, n*pout)
	p.Mask(m2, mask, n)
	for i := range pmask {
		if m2[i] != pmask[i] {
			t.Fatalf("mask[%d] = %d, want %d", i, m2[i], pmask[i])
		}
	}
	// Without the output: the same pooled values and mask.
	s4, b4 := d.NewScratch(), d.NewBlocks(1)
	py4, mask4 := make([]float32, n*pout), make([]int32, p.MaskSize())
	d.ForwardPool(s4, b4, 0, x, n, nil, bias, p, py4, mask4)
	sameBits(t, "pooled (no output)", py4, py)
	for i := range mask {
		if mask4[i] != mask[i] {
			t.Fatalf("mask without the output [%d] = %d, want %d", i, mask4[i], mask[i])
		}
	}
	// Piece by piece (ForwardPoolPieces), on two scratches taking turns
	// over the block in a second slot, from the last piece, then a band
	// and a half together from the first (where there are as many): the
	// same output, pooled values and mask.
	s5, s6, b5 := d.NewScratch(), d.NewScratch(), d.NewBlocks(2)
	y5, py5, mask5 := make([]float32, n*out), make([]float32, n*pout), make([]int32, p.MaskSize())
	d.LoadInput(b5, 1, x, n)
	mid := min(p.Pieces(), p.BandPieces()*3/2)
	d.ForwardPoolPieces(s6, b5, 1, n, y5, bias, p, py5, mask5, 0, mid)
	for i := p.Pieces() - 1; i >= mid; i-- {
		d.ForwardPoolPieces([...]*DirectScratch{s5, s6}[i%2], b5, 1, n, y5, bias, p, py5, mask5, i, i+1)
	}
	sameBits(t, "y (pieces)", y5, y)
	sameBits(t, "pooled (pieces)", py5, py)
	for i := range mask {
		if mask5[i] != mask[i] {
			t.Fatalf("mask by pieces [%d] = %d, want %d", i, mask5[i], mask[i])
		}
	}
	// The weight gradient alone, writing the output gradient.
	dy2 := randSlice(newRand(32), n*out)
	dw2 := append([]float32(nil), dw0...)
	d.WeightGradPooled(s2, x, p, pdy, mask, n, dy2, dw2)
	sameBits(t, "dy (weight gradient)", dy2, dy)
	sameBits(t, "dw (weight gradient)", dw2, dw)
	// The weight gradient with the bias gradient from its tiles: the
	// same dw, and db as the implementation's Sum of each image's planes
	// added image by image (SumRows, as a convolution's bias gradient).
	db4Start := randSlice(newRand(34), g.m)
	db4 := append([]float32(nil), db4Start...)
	dbWant := addPlaneSums(append([]float32(nil), db4...), dy, n, g.m, oh*ow, sum)
	dw4 := append([]float32(nil), dw0...)
	d.WeightGradPooledBias(s2, x, p, pdy, mask, n, db4, dw4)
	sameBits(t, "dw (with the bias gradient)", dw4, dw)
	sameBits(t, "db (from the tiles)", db4, dbWant)
	// Both gradients: the output gradient by LoadGradPooled.
	dy3 := randSlice(newRand(33), n*out)
	dx3, dw3 := make([]float32, n*img), append([]float32(nil), dw0...)
	d.LoadGradPooled(s2, p, pdy, mask, n, dy3)
	sameBits(t, "dy", dy3, dy)
	d.BackwardData(s2, dx3, n)
	d.WeightGradPooled(s2, x, p, pdy, mask, n, nil, dw3)
	sameBits(t, "dx", dx3, dx)
	sameBits(t, "dw", dw3, dw)
	// Both, the output gradient written nowhere: its sums from the tiles.
	dx5, dw5 := make([]float32, n*img), append([]float32(nil), dw0...)
	db5 := append([]float32(nil), db4Start...)
	d.LoadGradPooled(s2, p, pdy, mask, n, nil)
	d.BackwardData(s2, dx5, n)
	d.WeightGradPooledBias(s2, x, p, pdy, mask, n, db5, dw5)
	sameBits(t, "dx (no output gradient)", dx5, dx)
	sameBits(t, "dw (no output gradient)", dw5, dw)
	sameBits(t, "db (no output gradient)", db5, dbWant)
	// A scratch that PrepareWeightGrad made ready: the weight gradient's
	// first call on it allocates nothing, and gives the same dw. The
	// count is the process's, which a runtime goroutine's allocation
	// (rare) joins: a call on a fresh scratch is measured up to three
	// times, and one without allocations passes.
	var allocs uint64
	for range 3 {
		s7 := d.NewScratch()
		d.PrepareWeightGrad(s7, p)
		dw7 := append([]float32(nil), dw0...)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		d.WeightGradPooled(s7, x, p, pdy, mask, n, nil, dw7)
		runtime.ReadMemStats(&m1)
		sameBits(t, "dw (prepared scratch)", dw7, dw)
		if allocs = m1.Mallocs - m0.Mallocs; allocs == 0 {
			break
		}
	}
	if allocs != 0 {
		t.Errorf("WeightGradPooled's first call on a prepared scratch: %d allocations, want 0", allocs)
	}
}

// TestDirectPoolDeclines checks that NewMaxPool declines the poolings it
// does not take: clipped windows, overlapping windows, too few windows.
func TestDirectPoolDeclines(t *testing.T) {
	d := newDirectConv(goDirect, 3, 9, 10, 7, 1, 3, 3, 1, 1) // 9×10 output
	for _, c := range []struct{ kh, kw, sh, sw, ph, pw int }{
		{3, 3, 3, 3, 3, 4}, // the last column of windows is clipped
		{3, 3, 2, 2, 4, 4}, // windows overlap
		{2, 2, 2, 2, 3, 5}, // the last output row has no window
	} {
		if d.NewMaxPool(c.kh, c.kw, c.sh, c.sw, c.ph, c.pw) != nil {
			t.Errorf("NewMaxPool%v: want nil", c)
		}
	}
	if d.NewMaxPool(3, 2, 3, 2, 3, 5) == nil {
		t.Errorf("NewMaxPool(3, 2, 3, 2, 3, 5): nil")
	}
}

// TestDirectPoolKernels compares the assembly pooling kernels and the
// streaming deinterleave with the portable ones, bit for bit, on aligned
// and unaligned rows.
func TestDirectPoolKernels(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		L := k.lanes
		rng := newRand(23)
		src := randSlice(rng, 8192)
		for i := range src {
			if i%11 == 0 {
				src[i] = src[i+1] // ties
			}
		}
		src[5] = float32(math.NaN())
		src[L+2] = float32(math.Inf(-1))
		for _, c := range []struct{ n, kh, kw, sw int }{{1, 1, 1, 1}, {6, 2, 2, 2}, {3, 3, 2, 3}, {4, 1, 3, 4}, {7, 2, 2, 3}, {1, 2, 2, 2}, {5, 2, 3, 3}} {
			t.Run(fmt.Sprintf("%s/pool/%v", im.name, c), func(t *testing.T) {
				pix, row := 4*(3*L), 4*(3*L)*(c.n*c.sw+2)
				src := append([]float32(nil), src...)
				if c.n > 5 {
					// Window 5's lane 1 holds only −Inf, its lane 2 −Inf and
					// −MaxFloat32 once the bias is added: neither chooses.
					for i := range c.kh {
						for j := range c.kw {
							at := L + (5*c.sw+j)*pix/4 + i*row/4
							src[at+1], src[at+2] = float32(math.Inf(-1)), float32(math.Inf(-1))
						}
					}
					src[L+5*c.sw*pix/4+row/4+2] = -math.MaxFloat32 - 0.25
				}
				dstStep, argStep := 4*(2*L), 4*(3*L)
				got, want := make([]float32, c.n*dstStep/4), make([]float32, c.n*dstStep/4)
				gotArg, wantArg := make([]int32, c.n*argStep/4), make([]int32, c.n*argStep/4)
				k.maxPool(&got[0], dstStep, &gotArg[0], argStep, &src[L], pix, row, c.n, c.kh, c.kw, c.sw, 7, 40, 0.25)
				goDirectPoolMax(L)(&want[0], dstStep, &wantArg[0], argStep, &src[L], pix, row, c.n, c.kh, c.kw, c.sw, 7, 40, 0.25)
				sameBits(t, "pooled", got, want)
				if c.n > 5 && (wantArg[5*argStep/4+1] != -1 || wantArg[5*argStep/4+2] != -1) {
					t.Fatalf("window 5 chose %d and %d, want -1", wantArg[5*argStep/4+1], wantArg[5*argStep/4+2])
				}
				for i := range wantArg {
					if gotArg[i] != wantArg[i] {
						t.Fatalf("index %d = %d, want %d", i, gotArg[i], wantArg[i])
					}
				}
				grad := randSlice(newRand(24), c.n*dstStep/4)
				grad[0] = float32(math.Copysign(0, -1))
				size := c.kh*row/4 + c.n*c.sw*pix/4
				gotDx, wantDx := randSlice(newRand(25), size), make([]float32, size)
				copy(wantDx, gotDx)
				k.unpool(&gotDx[0], pix, row, &grad[0], dstStep, &wantArg[0], argStep, c.n, c.kh, c.kw, c.sw, 7, 40)
				goDirectUnpool(L)(&wantDx[0], pix, row, &grad[0], dstStep, &wantArg[0], argStep, c.n, c.kh, c.kw, c.sw, 7, 40)
				sameBits(t, "routed", gotDx, wantDx)
			})
		}
		for _, w := range []int{1, L - 1, L, 2 * L, 3*L + 5} {
			for _, n := range []int{1, L/2 + 1, L} {
				for _, shift := range []int{0, 1} {
					t.Run(fmt.Sprintf("%s/stream/w=%d/n=%d/shift=%d", im.name, w, n, shift), func(t *testing.T) {
						buf := make([]float32, n*(w+2*L)+4*L)
						// The first row at a vector boundary (plus shift floats),
						// the rows w+L floats apart.
						off := shift
						for uintptr(unsafe.Pointer(&buf[off-shift]))%uintptr(4*L) != 0 {
							off++
						}
						stride := 4 * (w + L)
						got := buf[off:]
						want := append([]float32(nil), got...)
						k.deinterleaveStream(&got[0], stride, &src[0], 4*(2*L), w, n, 0.5)
						deinterleaveGo(L)(&want[0], stride, &src[0], 4*(2*L), w, n, 0.5)
						sameBits(t, "deinterleaved", got, want)
					})
				}
			}
		}
	}
}

// addPlaneSums adds to db[r], for each image j < n in order and each of
// its m planes r of size floats in dy, sum of the plane: a convolution's
// bias gradient as SumRows adds it, with the implementation's Sum. It
// returns db.
func addPlaneSums(db, dy []float32, n, m, size int, sum func([]float32) float32) []float32 {
	for j := range n {
		for r := range m {
			db[r] += sum(dy[(j*m+r)*size : (j*m+r+1)*size])
		}
	}
	return db
}

// BenchmarkDirectPoolKernels times the interleaved max pooling and its
// gradient's routing over one channel of LeNet's conv1 output (24×24
// pixels into 12×12 windows of 2×2, which take the unrolled path), and
// over the same windows through the loops that other window sizes take
// (windows of 2×2 passed as two of 1×2 rows: the same stores):
//
//	go test -run '^$' -bench DirectPoolKernels ./ndarray/kernel
func BenchmarkDirectPoolKernels(b *testing.B) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		L := k.lanes
		const ow, ms, channels = 24, 21, 20
		src := randSlice(newRand(5), 24*ow*ms*L)
		pooled := make([]float32, 144*ms*L)
		mask := make([]int32, 144*channels*L)
		dst := make([]float32, 24*ow*L)
		for _, loops := range []bool{false, true} {
			kh, rows := 2, 1
			name := "2x2"
			if loops {
				kh, rows, name = 1, 2, "loops"
			}
			b.Run(im.name+"/pool/"+name, func(b *testing.B) {
				for range b.N {
					for r := range 12 {
						for h := range rows {
							k.maxPool(&pooled[r*12*ms*L], ms*L*4, &mask[r*12*channels*L], channels*L*4, &src[(r*2+h)*ow*ms*L], ms*L*4, ow*ms*L*4, 12, kh, 2, 2, int32(r*2*ow), int32(ow), 0)
						}
					}
				}
			})
			b.Run(im.name+"/unpool/"+name, func(b *testing.B) {
				for range b.N {
					for r := range 12 {
						for h := range rows {
							k.unpool(&dst[(r*2+h)*ow*L], L*4, ow*L*4, &pooled[r*12*ms*L], ms*L*4, &mask[r*12*channels*L], channels*L*4, 12, kh, 2, 2, int32(r*2*ow), int32(ow))
						}
					}
				}
			})
		}
	}
}
