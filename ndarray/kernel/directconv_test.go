package kernel

import (
	"fmt"
	"math"
	"testing"
	"unsafe"
)

// directGeom is a convolution geometry for the direct-convolution tests.
type directGeom struct {
	name                        string
	n, c, h, w, m, g, kh, kw, p int
	pw                          int // padding of the width (p of the height)
}

var directGeoms = []directGeom{
	{name: "lenet-conv1", n: 5, c: 1, h: 12, w: 11, m: 4, g: 1, kh: 5, kw: 5},
	{name: "lenet-conv2", n: 16, c: 20, h: 12, w: 12, m: 50, g: 1, kh: 5, kw: 5},
	{name: "cifar-pad", n: 19, c: 3, h: 9, w: 10, m: 32, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
	{name: "3x3-groups", n: 7, c: 8, h: 6, w: 7, m: 12, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
	{name: "rect-kernel", n: 3, c: 5, h: 7, w: 23, m: 17, g: 1, kh: 2, kw: 4, p: 1, pw: 0},
	{name: "wide", n: 2, c: 2, h: 3, w: 37, m: 3, g: 1, kh: 3, kw: 3, p: 0, pw: 2},
	{name: "many-weights", n: 9, c: 40, h: 5, w: 5, m: 6, g: 1, kh: 3, kw: 3, p: 1, pw: 1},
	// Images a multiple of 64 bytes apart, planes not: the stores start
	// with the pixels up to a line (deinterleaveLines).
	{name: "line-images", n: 18, c: 16, h: 13, w: 13, m: 32, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
}

// naiveConv computes the forward pass, the input gradient and the weight
// gradient of a stride-1 convolution in float64, by the definition.
func naiveConv(g directGeom, x, w, bias, dy []float32) (y, dx, dw []float64) {
	oh, ow := g.h+2*g.p-g.kh+1, g.w+2*g.pw-g.kw+1
	cg, mg := g.c/g.g, g.m/g.g
	y = make([]float64, g.n*g.m*oh*ow)
	dx = make([]float64, g.n*g.c*g.h*g.w)
	dw = make([]float64, g.m*cg*g.kh*g.kw)
	for n := range g.n {
		for m := range g.m {
			grp := m / mg
			for oy := range oh {
				for ox := range ow {
					yi := ((n*g.m+m)*oh+oy)*ow + ox
					s := 0.0
					if bias != nil {
						s = float64(bias[m])
					}
					for c := range cg {
						ci := grp*cg + c
						for ki := range g.kh {
							for kj := range g.kw {
								iy, ix := oy+ki-g.p, ox+kj-g.pw
								if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
									continue
								}
								xi := ((n*g.c+ci)*g.h+iy)*g.w + ix
								wi := ((m*cg+c)*g.kh+ki)*g.kw + kj
								s += float64(w[wi]) * float64(x[xi])
								dx[xi] += float64(w[wi]) * float64(dy[yi])
								dw[wi] += float64(x[xi]) * float64(dy[yi])
							}
						}
					}
					y[yi] = s
				}
			}
		}
	}
	return y, dx, dw
}

// checkClose fails unless got is within tol (relative to the largest
// magnitude of want, at least 1) of want.
func checkClose(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	scale := 1.0
	for _, v := range want {
		scale = max(scale, math.Abs(v))
	}
	for i, v := range want {
		if d := math.Abs(float64(got[i]) - v); !(d <= tol*scale) {
			t.Fatalf("%s[%d] = %v, want %v (scale %v)", what, i, got[i], v, scale)
		}
	}
}

// runDirect runs the plan over g's batch in blocks, with each block in its
// own slot of one scratch, and returns y, dx and dw (dw starting from 1).
func runDirect(d *DirectConv, g directGeom, x, w, bias, dy []float32) (y, dx, dw []float32) {
	L := d.Lanes()
	oh, ow := d.OutputSize()
	img, out := g.c*g.h*g.w, g.m*oh*ow
	blocks := (g.n + L - 1) / L
	s, bl := d.NewScratch(), d.NewBlocks(blocks)
	d.PackForward(w)
	d.PackBackward(w)
	y = make([]float32, g.n*out)
	dx = make([]float32, g.n*img)
	dw = make([]float32, len(w))
	for i := range dw {
		dw[i] = 1
	}
	for b := range blocks {
		lo, hi := b*L, min(g.n, (b+1)*L)
		d.Forward(s, bl, b, x[lo*img:hi*img], hi-lo, y[lo*out:hi*out], bias)
	}
	// The forward passes' inputs stay for the weight gradient.
	for b := range blocks {
		lo, hi := b*L, min(g.n, (b+1)*L)
		d.LoadGrad(s, dy[lo*out:hi*out], hi-lo)
		d.BackwardData(s, dx[lo*img:hi*img], hi-lo)
		d.WeightGrad(s, x[lo*img:hi*img], dy[lo*out:hi*out], hi-lo, dw)
	}
	return y, dx, dw
}

// checkDirect runs plan d on random operands of g (from seed) and checks
// its outputs and gradients against the definition's (runDirect,
// naiveConv).
func checkDirect(t *testing.T, d *DirectConv, g directGeom, seed uint64) {
	t.Helper()
	rng := newRand(seed)
	oh, ow := g.h+2*g.p-g.kh+1, g.w+2*g.pw-g.kw+1
	x := randSlice(rng, g.n*g.c*g.h*g.w)
	w := randSlice(rng, g.m*g.c/g.g*g.kh*g.kw)
	bias := randSlice(rng, g.m)
	dy := randSlice(rng, g.n*g.m*oh*ow)
	y, dx, dw := runDirect(d, g, x, w, bias, dy)
	wy, wdx, wdw := naiveConv(g, x, w, bias, dy)
	// ForwardReLU: Forward's outputs rectified, bit for bit, with a
	// negative slope and without.
	L := d.Lanes()
	out, img := g.m*oh*ow, g.c*g.h*g.w
	s, bl := d.NewScratch(), d.NewBlocks(1)
	for _, slope := range []float32{0, 0.25} {
		got, want := make([]float32, g.n*out), make([]float32, g.n*out)
		for lo := 0; lo < g.n; lo += L {
			hi := min(g.n, lo+L)
			d.ForwardReLU(s, bl, 0, x[lo*img:hi*img], hi-lo, got[lo*out:hi*out], bias, slope)
		}
		Relu(want, y, slope)
		sameBits(t, fmt.Sprintf("ForwardReLU (slope %v)", slope), got, want)
	}
	for i := range wdw {
		wdw[i]++
	}
	checkClose(t, "y", y, wy, 1e-5)
	checkClose(t, "dx", dx, wdx, 1e-5)
	checkClose(t, "dw", dw, wdw, 1e-5)
}

// TestDirectConv checks the direct convolution of every implementation
// (and of the portable reference kernels) against the definition.
func TestDirectConv(t *testing.T) {
	type impl struct {
		name string
		k    *directKernels
	}
	impls := []impl{{"go-reference", goDirect}}
	for _, name := range Implementations() {
		for _, im := range available() {
			if im.name == name && im.direct != nil {
				impls = append(impls, impl{name, im.direct})
			}
		}
	}
	for _, im := range impls {
		for _, g := range directGeoms {
			for _, blocking := range directGradBlockings {
				t.Run(fmt.Sprintf("%s/%s/grad=%v", im.name, g.name, blocking), func(t *testing.T) {
					defer blocking.set()()
					d := newDirectConv(im.k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
					if d == nil {
						t.Fatal("no plan")
					}
					checkDirect(t, d, g, 7)
				})
			}
		}
	}
}

// TestDirectConvKernels compares each assembly kernel with the portable
// one on the same operands, for every tile height.
func TestDirectConvKernels(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		L := k.lanes
		ref := &directKernels{lanes: L, mr: k.mr, gmr: k.gmr, gnr: k.gnr, tile: directTileGo(L), grad: directGradGo(L, k.gnr), gradSeq: directGradSeqGo(L, k.gnr),
			interleave: interleaveGo(L), deinterleave: deinterleaveGo(L), laneSums: laneSumsGo(L)}
		rng := newRand(11)
		src := randSlice(rng, 4096)
		a := randSlice(rng, 4096)
		for mr := 1; mr <= k.mr; mr++ {
			for _, npix := range []int{1, 2, 5} {
				for _, loadY := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/tile/mr=%d/npix=%d/load=%v", im.name, mr, npix, loadY), func(t *testing.T) {
						const kk, krows, kskip = 3, 3, 2
						off := []int32{0, 4 * int32(L), 12, 64 * 4, 8, 4 * int32(3*L), 100 * 4, 24, 4 * int32(7*L), 40, 0, 80, 96}
						xstep, ystep := 4*(L+3), 4*(mr*L+L)
						got, want := randSlice(newRand(3), npix*ystep/4+mr*L), []float32(nil)
						want = append(want, got...)
						k.tile(mr, kk, krows, kskip, &a[0], &src[0], &off[0], xstep, &got[0], ystep, npix, loadY)
						ref.tile(mr, kk, krows, kskip, &a[0], &src[0], &off[0], xstep, &want[0], ystep, npix, loadY)
						// One run: the seven first weights.
						k.tile(mr, 7, 1, 0, &a[0], &src[0], &off[0], xstep, &got[0], ystep, npix, loadY)
						ref.tile(mr, 7, 1, 0, &a[0], &src[0], &off[0], xstep, &want[0], ystep, npix, loadY)
						checkClose(t, "y", got, f64(want), 1e-6)
					})
				}
			}
		}
		for mr := 1; mr <= k.gmr; mr++ {
			for _, load := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/grad/mr=%d/load=%v", im.name, mr, load), func(t *testing.T) {
					offs := []int32{0, 4 * int32(L), 4 * int32(2*L), 4 * int32(5*L), 4 * int32(7*L)}[:k.gnr]
					dyRow, dyStep, xRow, xStep := 4*(7*L), 4*(2*L), 4*(9*L), 4*L
					accRow := 4 * (k.gnr*L + L)
					got := randSlice(newRand(4), mr*accRow/4)
					want := append([]float32(nil), got...)
					k.grad(mr, &a[0], dyRow, dyStep, &src[0], &offs[0], xRow, xStep, 3, 3, &got[0], accRow, load)
					ref.grad(mr, &a[0], dyRow, dyStep, &src[0], &offs[0], xRow, xStep, 3, 3, &want[0], accRow, load)
					checkClose(t, "acc", got, f64(want), 1e-5)
				})
			}
		}
		for _, w := range []int{1, 5, L, L + 3, 3*L + 1} {
			for _, n := range []int{1, L / 2, L} {
				t.Run(fmt.Sprintf("%s/interleave/w=%d/n=%d", im.name, w, n), func(t *testing.T) {
					dstStep, srcStride := 4*(2*L), 4*(w+3)
					got := randSlice(newRand(5), w*dstStep/4)
					want := append([]float32(nil), got...)
					k.interleave(&got[0], dstStep, &src[0], srcStride, w, n)
					ref.interleave(&want[0], dstStep, &src[0], srcStride, w, n)
					checkClose(t, "dst", got, f64(want), 0)
					got2 := randSlice(newRand(6), n*srcStride/4)
					want2 := append([]float32(nil), got2...)
					k.deinterleave(&got2[0], srcStride, &src[0], dstStep, w, n, 0.5)
					ref.deinterleave(&want2[0], srcStride, &src[0], dstStep, w, n, 0.5)
					checkClose(t, "deinterleaved", got2, f64(want2), 0)
					if k.interleaveStream != nil {
						// Non-temporal stores want lines: dst 64-byte aligned.
						buf := make([]float32, w*dstStep/4+16)
						off := int(-uintptr(unsafe.Pointer(&buf[0]))%64) / 4
						got3 := buf[off : off+w*dstStep/4]
						copy(got3, randSlice(newRand(5), len(got3)))
						k.interleaveStream(&got3[0], dstStep, &src[0], srcStride, w, n)
						k.fence()
						checkClose(t, "streamed", got3, f64(want), 0)
					}
				})
			}
		}
		for _, n := range []int{1, 7, 16, 17, 40} {
			t.Run(fmt.Sprintf("%s/laneSums/n=%d", im.name, n), func(t *testing.T) {
				got := randSlice(newRand(8), n)
				want := append([]float32(nil), got...)
				k.laneSums(&got[0], &src[0], n)
				ref.laneSums(&want[0], &src[0], n)
				checkClose(t, "sums", got, f64(want), 1e-6)
			})
		}
	}
}

func f64(s []float32) []float64 {
	d := make([]float64, len(s))
	for i, v := range s {
		d[i] = float64(v)
	}
	return d
}

// TestDirectConvFor checks that a plan for a few images takes the
// narrowest kernels this CPU runs that hold them.
func TestDirectConvFor(t *testing.T) {
	wide := NewDirectConv(3, 8, 8, 4, 1, 3, 3, 1, 1)
	if wide == nil {
		t.Skip("no direct convolution with these kernels")
	}
	narrowest := wide.Lanes()
	for _, im := range available() {
		if im.direct != nil {
			narrowest = min(narrowest, im.direct.lanes)
		}
	}
	if d := NewDirectConvFor(4, 3, 8, 8, 4, 1, 3, 3, 1, 1); d == nil || d.Lanes() != narrowest {
		t.Errorf("a plan for 4 images has %v lanes, want %d", d, narrowest)
	}
	if d := NewDirectConvFor(wide.Lanes(), 3, 8, 8, 4, 1, 3, 3, 1, 1); d == nil || d.Lanes() != wide.Lanes() {
		t.Errorf("a plan for %d images has %v lanes", wide.Lanes(), d)
	}
}

// TestDeinterleaveLines checks that deinterleaveLines stores what the
// kernel's deinterleave stores, bit for bit, wherever the rows start in
// a line, whatever the images' distance and the pixels' count.
func TestDeinterleaveLines(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	for name, k := range impls {
		d := &DirectConv{k: k, lanes: k.lanes}
		L := k.lanes
		rng := newRand(3)
		for _, stride := range []int{176, 173} {
			for _, start := range []int{0, 1, 5, 15} {
				for _, w := range []int{1, 3, 16, 17, 40, 169} {
					for _, n := range []int{L, 1, L - 1} {
						const step = 3 // vectors between pixels
						src := randSlice(rng, w*step*L)
						want := randSlice(rng, start+L*stride+w)
						got := append([]float32(nil), want...)
						k.deinterleave(&want[start], stride*4, &src[0], step*L*4, w, n, 0.25)
						d.deinterleaveLines(&got[start], stride*4, &src[0], step*L*4, w, n, 0.25)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s: stride %d, start %d, %d pixels, %d images: dst[%d] = %v, want %v", name, stride, start, w, n, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}
