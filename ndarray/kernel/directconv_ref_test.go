package kernel

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// weightGradPixelMajor is the weight gradient as the direct convolution
// first computed it, kept as the reference that WeightGrad must match bit
// for bit: the grad kernel reads the interleaved input in its pixel-major
// layout (as Forward keeps it) and the padded pixel-major output gradient
// (LoadGrad), a tile of output channels and a band of output rows at a
// time, the weights in Caffe's order (c, ki, kj) or, byChannel, in the
// order (ki, kj, c); the lanes of each output channel's sums are added
// to dw.
func weightGradPixelMajor(d *DirectConv, x, dy []float32, n int, dw []float32, byChannel bool) {
	L, f := d.lanes, 4
	b, s := d.NewBlocks(1), d.NewScratch()
	d.LoadInput(b, 0, x, n)
	d.LoadGrad(s, dy, n)
	gnr, gmr := d.k.gnr, d.k.gmr
	kp := (d.kk + gnr - 1) / gnr * gnr
	var off, perm []int32
	for c := range d.c {
		for ki := range d.kh {
			for kj := range d.kw {
				off = append(off, int32(((ki*d.pw+kj)*d.cs+c)*L*f))
				perm = append(perm, int32(len(perm)))
			}
		}
	}
	if byChannel {
		off, perm = off[:0], perm[:0]
		for ki := range d.kh {
			for kj := range d.kw {
				for c := range d.c {
					off = append(off, int32(((ki*d.pw+kj)*d.cs+c)*L*f))
					perm = append(perm, int32((c*d.kh+ki)*d.kw+kj))
				}
			}
		}
	}
	for len(off) < kp {
		off = append(off, off[len(off)-1])
	}
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	rows := max(1, 6144/(gmr*L*d.ow))
	dyRow, xRow := d.dw*d.ms*L, d.pw*d.cs*L
	acc := make([]float32, gmr*kp*L)
	tmp := make([]float32, d.kk)
	for g := range d.groups {
		for _, t := range tiles(d.m, gmr) {
			for r0 := 0; r0 < d.oh; r0 += rows {
				nr := min(rows, d.oh-r0)
				dyp := &s.dy[((p0+r0)*d.dw+p1)*d.ms*L+(g*d.m+t.r0)*L]
				xp := &b.x[r0*xRow+g*d.c*L]
				for k0 := 0; k0 < kp; k0 += gnr {
					d.k.grad(t.h, dyp, dyRow*f, d.ms*L*f, xp, &off[k0], xRow*f, d.cs*L*f, nr, d.ow, &acc[k0*L], kp*L*f, r0 > 0)
				}
			}
			for i := range t.h {
				row := dw[(g*d.m+t.r0+i)*d.kk:]
				clear(tmp)
				d.k.laneSums(&tmp[0], &acc[i*kp*L], d.kk)
				for k, j := range perm {
					row[j] += tmp[k]
				}
			}
		}
	}
}

// TestDirectConvWeightGradExact checks that WeightGrad, and
// WeightGradLoaded after LoadGrad, give bit for bit the sums of the
// pixel-major reference, in both of its weight orders, for every
// implementation, full and partial blocks, from a nonzero dw.
func TestDirectConvWeightGradExact(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	geoms := append(directGeoms[:len(directGeoms):len(directGeoms)],
		directGeom{name: "cifar-conv2", n: 16, c: 32, h: 16, w: 16, m: 32, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
		directGeom{name: "alexnet-conv4-like", n: 16, c: 64, h: 13, w: 13, m: 24, g: 2, kh: 3, kw: 3, p: 1, pw: 1})
	for name, k := range impls {
		for _, g := range geoms {
			for _, n := range []int{k.lanes, 3} {
				t.Run(fmt.Sprintf("%s/%s/n=%d", name, g.name, n), func(t *testing.T) {
					d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
					oh, ow := d.OutputSize()
					rng := newRand(13)
					x := randSlice(rng, n*g.c*g.h*g.w)
					dy := randSlice(rng, n*g.m*oh*ow)
					start := randSlice(rng, g.m*g.c/g.g*g.kh*g.kw)
					want := append([]float32(nil), start...)
					weightGradPixelMajor(d, x, dy, n, want, false)
					byChannel := append([]float32(nil), start...)
					weightGradPixelMajor(d, x, dy, n, byChannel, true)
					for _, blocking := range directGradBlockings {
						restore := blocking.set()
						d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
						restore()
						got := append([]float32(nil), start...)
						d.WeightGrad(d.NewScratch(), x, dy, n, got)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(got[i]) != math.Float32bits(byChannel[i]) {
								t.Fatalf("blocking %v: dw[%d] = %v, want %v (by channel %v) bit for bit", blocking, i, got[i], want[i], byChannel[i])
							}
						}
						// The gradient LoadGrad left, copied out tile by
						// tile and read where it lies.
						for _, stride := range []int{0, 1 << 30} {
							old := directGradStride
							directGradStride = stride
							loaded := append([]float32(nil), start...)
							s := d.NewScratch()
							d.LoadGrad(s, dy, n)
							d.WeightGradLoaded(s, x, n, loaded)
							directGradStride = old
							for i := range want {
								if math.Float32bits(loaded[i]) != math.Float32bits(want[i]) {
									t.Fatalf("blocking %v, stride %d: WeightGradLoaded: dw[%d] = %v, want %v bit for bit", blocking, stride, i, loaded[i], want[i])
								}
							}
						}
					}
				})
			}
		}
	}
}

// gradBlocking is a blocking of the weight gradient (see WeightGrad),
// with the sizes from which it sums the lanes through rows of the
// scratch and prefetches the input.
type gradBlocking struct{ group, chunk, pixels, rows, prefetch int }

// set sets the blocking for the plans made next and returns the function
// that restores the one before.
func (b gradBlocking) set() func() {
	vars := []*int{&directGradGroup, &directGradChunk, &directGradPixels, &directGradRowsBytes, &directGradPrefetchBytes}
	vals := []int{b.group, b.chunk, b.pixels, b.rows, b.prefetch}
	old := make([]int, len(vars))
	for i, v := range vars {
		old[i], *v = *v, vals[i]
	}
	return func() {
		for i, v := range vars {
			*v = old[i]
		}
	}
}

// directGradBlockings are the default blocking and two extremes: one
// tile, one call's weights and one row per call, the lanes summed through
// the scratch's rows and the input prefetched; every tile, every weight
// and every row in one call, the lanes summed into dw directly and
// nothing prefetched.
var directGradBlockings = []gradBlocking{
	{directGradGroup, directGradChunk, directGradPixels, directGradRowsBytes, directGradPrefetchBytes},
	{1, 1, 1, 0, 0},
	{1 << 20, 1 << 20, 1 << 30, 1 << 62, 1 << 62},
}

// TestDirectGradSeq checks that each implementation's gradSeq kernel
// gives bit for bit the sums of its grad kernel on the same operands, for
// every tile height, rows of odd and even widths, with and without sums
// to add to, for one group of weights and for two in one call.
func TestDirectGradSeq(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	for name, k := range impls {
		L, f := k.lanes, 4
		rng := newRand(17)
		src := randSlice(rng, 8192)
		dy := randSlice(rng, 8192)
		for mr := 1; mr <= k.gmr; mr++ {
			for _, oh := range []int{1, 3} {
				for _, ow := range []int{1, 2, 5, 8} {
					for _, load := range []bool{false, true} {
						for _, groups := range []int{1, 2} {
							for _, spread := range []int{0, 2} {
								t.Run(fmt.Sprintf("%s/mr=%d/%dx%d/load=%v/groups=%d/spread=%d", name, mr, oh, ow, load, groups, spread), func(t *testing.T) {
									// dy's pixels spread vectors apart beyond
									// their mr, and rows 3·spread more.
									dyStep, dySkip := (mr+spread)*L*f, 3*spread*L*f
									offs := []int32{0, int32(f * L), int32(f * 9 * L), int32(f * 10 * L), int32(f * 21 * L)}[:k.gnr]
									offs = append(offs, []int32{int32(f * 2 * L), int32(f * 30 * L), int32(f * 3 * L), int32(f * 11 * L), int32(f * 12 * L)}[:k.gnr]...)
									skip := 3 * L * f
									accRow := f * (2*k.gnr*L + L)
									got := randSlice(newRand(4), mr*accRow/f)
									want := append([]float32(nil), got...)
									k.gradSeq(mr, &dy[0], dyStep, dySkip, &src[0], &offs[0], skip, oh, ow, &got[0], accRow, load, groups, 4096)
									for g := range groups {
										k.grad(mr, &dy[0], ow*dyStep+dySkip, dyStep, &src[0], &offs[g*k.gnr], ow*L*f+skip, L*f, oh, ow, &want[g*k.gnr*L], accRow, load)
									}
									for i := range want {
										if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
											t.Fatalf("acc[%d] = %v, want %v bit for bit", i, got[i], want[i])
										}
									}
								})
							}
						}
					}
				}
			}
		}
	}
}

// TestDirectGradRow checks that each implementation's gradRow kernel
// gives bit for bit the sums of its gradSeq kernel (called for the row's
// weights gnr at a time) on the same operands, for every tile height,
// rows of odd and even widths, with and without sums to add to, the
// gradient's pixels spread out; and that two kernel rows in one call give
// the sums of a call for each.
func TestDirectGradRow(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	for name, k := range impls {
		if k.gradRow == nil {
			continue
		}
		L, f := k.lanes, 4
		rng := newRand(19)
		src := randSlice(rng, 8192)
		dy := randSlice(rng, 8192)
		for mr := 1; mr <= k.rmr; mr++ {
			for _, oh := range []int{1, 3} {
				for _, ow := range []int{1, 2, 5, 8} {
					for _, load := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/mr=%d/%dx%d/load=%v", name, mr, oh, ow, load), func(t *testing.T) {
							// The row starts 3 vectors into x.
							var offs []int32
							for j := range gradRowWidth {
								offs = append(offs, int32(f*(3+j)*L))
							}
							skip := 4 * L * f
							accRow := f * (gradRowWidth*L + L)
							start := randSlice(newRand(4), mr*accRow/f)
							got := append([]float32(nil), start...)
							// dy's pixels 2 vectors apart beyond their mr,
							// rows 5 more.
							dyStep, dySkip := (mr+2)*L*f, 5*L*f
							k.gradRow(mr, &dy[0], dyStep, dySkip, &src[0], &offs[0], skip, oh, ow, &got[0], accRow, load, 1, 0)
							// gradSeq, gnr weights at a time (the last repeated).
							want := append([]float32(nil), start...)
							seqSums(k, mr, offs, &dy[0], dyStep, dySkip, &src[0], skip, oh, ow, want, accRow, load)
							for i := range want {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("acc[%d] = %v, want %v bit for bit", i, got[i], want[i])
								}
							}
							// Two rows, the second 7 vectors on, in one call
							// (each row's offsets, of which the kernel reads
							// the first)
							rows := make([]int32, 2*gradRowWidth)
							for j := range gradRowWidth {
								rows[j], rows[gradRowWidth+j] = offs[j], offs[j]+int32(f*7*L)
							}
							row2 := f * (2*gradRowWidth*L + L)
							two := randSlice(newRand(5), mr*row2/f)
							want2 := append([]float32(nil), two...)
							// and a call for each.
							k.gradRow(mr, &dy[0], dyStep, dySkip, &src[0], &rows[0], skip, oh, ow, &two[0], row2, load, 2, 0)
							for g := range 2 {
								k.gradRow(mr, &dy[0], dyStep, dySkip, &src[0], &rows[g*gradRowWidth], skip, oh, ow, &want2[g*gradRowWidth*L], row2, load, 1, 0)
							}
							for i := range want2 {
								if math.Float32bits(two[i]) != math.Float32bits(want2[i]) {
									t.Fatalf("two rows: acc[%d] = %v, want %v bit for bit", i, two[i], want2[i])
								}
							}
						})
					}
				}
			}
		}
	}
}

// TestDirectGradWin checks that each implementation's gradWin kernel
// gives bit for bit the sums of its gradSeq kernel (called for the
// window's nine weights gnr at a time) on the same operands, for every
// tile height, rows of every width modulo 3 and of AlexNet's 13, with and
// without sums to add to, the gradient's pixels spread out; and that two
// input channels in one call give the sums of a call for each.
func TestDirectGradWin(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	for name, k := range impls {
		if k.gradWin == nil {
			continue
		}
		L, f := k.lanes, 4
		rng := newRand(23)
		src := randSlice(rng, 64*1024)
		dy := randSlice(rng, 32*1024)
		for mr := 1; mr <= k.wmr; mr++ {
			for _, oh := range []int{1, 2, 4} {
				for _, ow := range []int{1, 2, 3, 4, 5, 6, 7, 13} {
					for _, load := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/mr=%d/%dx%d/load=%v", name, mr, oh, ow, load), func(t *testing.T) {
							// Rows of ow+2 vectors and 3 more; the window
							// starts 5 vectors into x.
							skip := (2 + 3) * L * f
							row := ow*L*f + skip
							var offs []int32
							for j := range 9 {
								offs = append(offs, int32(f*5*L+j/3*row+j%3*L*f))
							}
							accRow := f * (9*L + L)
							start := randSlice(newRand(4), mr*accRow/f)
							// dy's pixels 2 vectors apart beyond their mr,
							// rows 5 more.
							dyStep, dySkip := (mr+2)*L*f, 5*L*f
							got := append([]float32(nil), start...)
							k.gradWin(mr, &dy[0], dyStep, dySkip, &src[0], &offs[0], skip, oh, ow, &got[0], accRow, load, 1, 0)
							want := append([]float32(nil), start...)
							seqSums(k, mr, offs, &dy[0], dyStep, dySkip, &src[0], skip, oh, ow, want, accRow, load)
							for i := range want {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("acc[%d] = %v, want %v bit for bit", i, got[i], want[i])
								}
							}
							// Two channels, the second 11 rows on, in one
							// call, and a call for each.
							chans := make([]int32, 18)
							for j := range 9 {
								chans[j], chans[9+j] = offs[j], offs[j]+int32(11*row)
							}
							row2 := f * (18*L + L)
							two := randSlice(newRand(5), mr*row2/f)
							want2 := append([]float32(nil), two...)
							k.gradWin(mr, &dy[0], dyStep, dySkip, &src[0], &chans[0], skip, oh, ow, &two[0], row2, load, 2, 4096)
							for g := range 2 {
								k.gradWin(mr, &dy[0], dyStep, dySkip, &src[0], &chans[g*9], skip, oh, ow, &want2[g*9*L], row2, load, 1, 0)
							}
							for i := range want2 {
								if math.Float32bits(two[i]) != math.Float32bits(want2[i]) {
									t.Fatalf("two channels: acc[%d] = %v, want %v bit for bit", i, two[i], want2[i])
								}
							}
						})
					}
				}
			}
		}
	}
}

// seqSums is k.gradSeq for the weights at offs, gnr at a time (the last
// repeated), into acc's rows accRow bytes apart, a vector a weight.
func seqSums(k *directKernels, mr int, offs []int32, dy *float32, dyStep, dySkip int, x *float32, skip, oh, ow int, acc []float32, accRow int, load bool) {
	L, f := k.lanes, 4
	n := len(offs)
	for j0 := 0; j0 < n; j0 += k.gnr {
		part := make([]int32, k.gnr)
		tmp := make([]float32, mr*k.gnr*L)
		for j := range part {
			jj := min(j0+j, n-1)
			part[j] = offs[jj]
			for i := range mr {
				copy(tmp[(i*k.gnr+j)*L:(i*k.gnr+j+1)*L], acc[i*accRow/f+jj*L:])
			}
		}
		k.gradSeq(mr, dy, dyStep, dySkip, x, &part[0], skip, oh, ow, &tmp[0], f*k.gnr*L, load, 1, 0)
		for j := range k.gnr {
			if j0+j < n {
				for i := range mr {
					copy(acc[i*accRow/f+(j0+j)*L:i*accRow/f+(j0+j+1)*L], tmp[(i*k.gnr+j)*L:])
				}
			}
		}
	}
}

// TestDirectConvGroupOrder checks that Forward and BackwardData, which
// take a group and a chunk of tiles at a time, give bit for bit the
// outputs of the band-major order (every group of a band of rows, then
// the next band), for grouped geometries, every implementation and
// chunks of whole planes (one chunk, several, or a tile each) or of bands
// of rows.
func TestDirectConvGroupOrder(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	geoms := []directGeom{
		{name: "3x3-groups", n: 7, c: 8, h: 6, w: 7, m: 12, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
		{name: "alexnet-conv2-like", n: 5, c: 12, h: 9, w: 9, m: 16, g: 2, kh: 5, kw: 5, p: 2, pw: 2},
		{name: "three-groups", n: 3, c: 9, h: 7, w: 5, m: 6, g: 3, kh: 3, kw: 3, p: 1, pw: 0},
		// Runs of directKC weights (360 and 288 a group) and odd inner rows.
		{name: "many-weights-groups", n: 4, c: 80, h: 6, w: 7, m: 64, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
	}
	defer func(v, w int) { directChunk, directChunkTiles = v, w }(directChunk, directChunkTiles)
	for name, k := range impls {
		for _, g := range geoms {
			for _, chunk := range [][2]int{{640 << 10, 640 << 10}, {640 << 10, 4 << 10}, {12 << 10, 12 << 10}, {2 << 10, 2 << 10}} {
				t.Run(fmt.Sprintf("%s/%s/chunk=%d,%d", name, g.name, chunk[0], chunk[1]), func(t *testing.T) {
					directChunk, directChunkTiles = chunk[0], chunk[1]
					d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
					n := min(g.n, d.lanes)
					oh, ow := d.OutputSize()
					rng := newRand(23)
					x := randSlice(rng, n*g.c*g.h*g.w)
					w := randSlice(rng, g.m*g.c/g.g*g.kh*g.kw)
					bias := randSlice(rng, g.m)
					dy := randSlice(rng, n*g.m*oh*ow)
					d.PackForward(w)
					d.PackBackward(w)
					s, b := d.NewScratch(), d.NewBlocks(1)
					y := make([]float32, n*g.m*oh*ow)
					d.Forward(s, b, 0, x, n, y, bias)
					want := make([]float32, len(y))
					band := d.bandRows(d.ow, d.ms)
					for y0 := 0; y0 < oh; y0 += band {
						y1 := min(oh, y0+band)
						d.convolveBand(s, b.x, y0, y1)
						d.store(s.y, d.mAll, d.ms, y0, y1, oh, ow, want, n, bias, false)
					}
					sameBits(t, "y", y, want)
					dx := make([]float32, n*g.c*g.h*g.w)
					d.LoadGrad(s, dy, n)
					d.BackwardData(s, dx, n)
					wantDx := make([]float32, len(dx))
					L, kb, p0 := d.lanes, d.m*d.kh*d.kw, d.kh-1-d.padH
					band = d.bandRows(d.w, d.cs)
					for y0 := 0; y0 < d.h; y0 += band {
						y1 := min(d.h, y0+band)
						for gr := range d.groups {
							pb := d.wb[gr*d.packedB:]
							for _, tl := range d.bTiles {
								for yy := y0; yy < y1; yy++ {
									kiLo, kiHi := max(0, p0-yy), min(d.kh, p0+d.oh-yy)
									d.tileRow(tl.h, pb[tl.r0*kb:], d.offB, d.m, kiLo, kiHi, s.dy[(yy*d.dw*d.ms+gr*d.m)*L:], d.ms*L,
										s.y[(((yy-y0)*d.w)*d.cs+gr*d.c+tl.r0)*L:], d.cs*L, d.w, d.kw-1-d.padW, d.ow)
								}
							}
						}
						d.store(s.y, d.cAll, d.cs, y0, y1, d.h, d.w, wantDx, n, nil, false)
					}
					sameBits(t, "dx", dx, wantDx)
				})
			}
		}
	}
}

// TestDirectConvLoadGradTiles checks that LoadGradTiles leaves in the
// scratch, bit for bit, the gradient LoadGrad leaves, that
// WeightGradLoaded after it gives WeightGrad's sums, whether it reads
// the tiles or the gradient in place, and that it adds to the bias
// gradient the sums of the planes image by image; with a ReLU, all of
// them of the gradient ReluGrad gives, which it leaves in dy; then that
// a LoadGrad after it drops the tiles.
func TestDirectConvLoadGradTiles(t *testing.T) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	geoms := append(directGeoms[:len(directGeoms):len(directGeoms)],
		directGeom{name: "alexnet-conv4-like", n: 16, c: 64, h: 13, w: 13, m: 24, g: 2, kh: 3, kw: 3, p: 1, pw: 1})
	same := func(t *testing.T, what string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s[%d] = %v, want %v bit for bit", what, i, got[i], want[i])
			}
		}
	}
	for name, k := range impls {
		for _, g := range geoms {
			for _, n := range []int{k.lanes, 3} {
				for _, relu := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/n=%d/relu=%v", name, g.name, n, relu), func(t *testing.T) {
						d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
						oh, ow := d.OutputSize()
						P := oh * ow
						rng := newRand(17)
						x := randSlice(rng, n*g.c*g.h*g.w)
						in := randSlice(rng, n*g.m*P)
						dy2 := randSlice(rng, n*g.m*P)
						start := randSlice(rng, g.m*g.c/g.g*g.kh*g.kw)
						bias := randSlice(rng, g.m)
						// The gradient the layers one by one would see.
						dy := append([]float32(nil), in...)
						var ry []float32
						var slope float32
						if relu {
							ry, slope = randSlice(rng, n*g.m*P), 0.125
							for i := range ry {
								ry[i] = max(0, ry[i]) // some exactly zero
							}
							ReluGrad(dy, dy, ry, slope)
						}
						want := append([]float32(nil), start...)
						ref := d.NewScratch()
						d.WeightGrad(ref, x, dy, n, want)
						wantDB := append([]float32(nil), bias...)
						for j := range n {
							for m := range g.m {
								wantDB[m] += Sum(dy[j*g.m*P+m*P : j*g.m*P+(m+1)*P])
							}
						}
						d.LoadGrad(ref, dy, n)
						// Runs of one tile, of a few channels and of a
						// whole group (directLoadChannels).
						// and the padded gradient by the kernels' streaming
						// stores where they have them (directStreamBytes).
						defer func(v, w int) { directLoadChannels, directStreamBytes = v, w }(directLoadChannels, directStreamBytes)
						for _, sc := range [][3]int{{0, 1, 1 << 40}, {1 << 30, 1, 1 << 40}, {0, 7, 0}, {0, 1 << 20, 1 << 40}, {1 << 30, 1 << 20, 0}} {
							stride := sc[0]
							directLoadChannels, directStreamBytes = sc[1], sc[2]
							old := directGradStride
							directGradStride = stride
							defer func() { directGradStride = old }()
							s := d.NewScratch()
							got, db := append([]float32(nil), start...), append([]float32(nil), bias...)
							gdy := append([]float32(nil), in...)
							if !relu {
								ry = nil
							}
							d.LoadGradTiles(s, gdy, n, db, ry, slope)
							if s.tiled != (stride == 0) {
								t.Errorf("stride %d: tiled = %v", stride, s.tiled)
							}
							same(t, fmt.Sprint("stride ", stride, ": dy"), gdy, dy)
							same(t, fmt.Sprint("stride ", stride, ": scratch dy"), s.dy, ref.dy)
							same(t, fmt.Sprint("stride ", stride, ": db"), db, wantDB)
							d.WeightGradLoaded(s, x, n, got)
							same(t, fmt.Sprint("stride ", stride, ": dw"), got, want)
							// Another gradient by LoadGrad: its sums, not the
							// tiles'.
							d.LoadGrad(s, dy2, n)
							got2, want2 := append([]float32(nil), start...), append([]float32(nil), start...)
							d.WeightGradLoaded(s, x, n, got2)
							d.WeightGrad(d.NewScratch(), x, dy2, n, want2)
							same(t, fmt.Sprint("stride ", stride, ": after LoadGrad: dw"), got2, want2)
							directGradStride = old
						}
					})
				}
			}
		}
	}
}

// packForwardGeoms and packBackwardGeoms are geometries of several
// forward (output) and backward (input channel) tiles, uneven ones and
// groups, for the packing's tests.
var (
	packForwardGeoms = []directGeom{
		{name: "3x3-groups", c: 8, h: 6, w: 7, m: 12, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
		{name: "5x5-uneven-tiles", c: 7, h: 9, w: 9, m: 45, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
		{name: "3x2-three-groups", c: 6, h: 7, w: 5, m: 51, g: 3, kh: 3, kw: 2, p: 1, pw: 0},
	}
	packBackwardGeoms = []directGeom{
		{name: "3x3-groups-b", c: 8, h: 6, w: 7, m: 12, g: 2, kh: 3, kw: 3, p: 1, pw: 1},
		{name: "5x5-uneven-tiles-b", c: 23, h: 9, w: 9, m: 7, g: 1, kh: 5, kw: 5, p: 2, pw: 2},
		{name: "3x2-three-groups-b", c: 45, h: 7, w: 5, m: 6, g: 3, kh: 3, kw: 2, p: 1, pw: 0},
	}
)

// TestDirectConvPackBackward checks PackBackward's layout against its
// definition, value by value: tile t of group g holds, for k = (ki, kj,
// m) and i < t.h, the weight of output m, input channel r0+i at the
// flipped position (kh−1−ki, kw−1−kj), at [k][i] of the tile.
func TestDirectConvPackBackward(t *testing.T) {
	testPacked(t, packBackwardGeoms, func(t *testing.T, d *DirectConv, w []float32, g directGeom) {
		d.PackBackward(w)
		cg, mg := g.c/g.g, g.m/g.g
		for grp := range g.g {
			pb := d.wb[grp*d.packedB:]
			for _, tl := range d.bTiles {
				for ki := range g.kh {
					for kj := range g.kw {
						for m := range mg {
							k := (ki*g.kw+kj)*mg + m
							for i := range tl.h {
								want := w[(((grp*mg+m)*cg+tl.r0+i)*g.kh+g.kh-1-ki)*g.kw+g.kw-1-kj]
								if got := pb[tl.r0*mg*g.kh*g.kw+k*tl.h+i]; got != want {
									t.Fatalf("group %d tile %d k=(%d,%d,%d) i=%d: %v, want %v", grp, tl.r0, ki, kj, m, i, got, want)
								}
							}
						}
					}
				}
			}
		}
	})
}

// testPacked runs check on a plan of each geometry for each
// implementation (and the portable reference kernels) with random
// weights.
func testPacked(t *testing.T, geoms []directGeom, check func(t *testing.T, d *DirectConv, w []float32, g directGeom)) {
	impls := map[string]*directKernels{"go-reference": goDirect}
	for _, im := range available() {
		if im.direct != nil {
			impls[im.name] = im.direct
		}
	}
	for name, k := range impls {
		for _, g := range geoms {
			t.Run(name+"/"+g.name, func(t *testing.T) {
				d := newDirectConv(k, g.c, g.h, g.w, g.m, g.g, g.kh, g.kw, g.p, g.pw)
				check(t, d, randSlice(newRand(5), g.m*g.c/g.g*g.kh*g.kw), g)
			})
		}
	}
}

// TestDirectConvPackForward checks PackForward's layout against its
// definition, value by value: tile t of group g holds, for k = (ki, kj,
// c) and i < t.h, the weight of output r0+i, input channel c at (ki, kj),
// at [k][i] of the tile.
func TestDirectConvPackForward(t *testing.T) {
	testPacked(t, packForwardGeoms, func(t *testing.T, d *DirectConv, w []float32, g directGeom) {
		d.PackForward(w)
		cg, mg := g.c/g.g, g.m/g.g
		for grp := range g.g {
			pf := d.wf[grp*d.packedF:]
			for _, tl := range d.fTiles {
				for ki := range g.kh {
					for kj := range g.kw {
						for c := range cg {
							k := (ki*g.kw+kj)*cg + c
							for i := range tl.h {
								want := w[(((grp*mg+tl.r0+i)*cg+c)*g.kh+ki)*g.kw+kj]
								if got := pf[tl.r0*d.kk+k*tl.h+i]; got != want {
									t.Fatalf("group %d tile %d k=(%d,%d,%d) i=%d: %v, want %v", grp, tl.r0, ki, kj, c, i, got, want)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestDirectConvPackParts checks that PackForwardPart and
// PackBackwardPart, for each count of parts up to beyond PackParts, run
// in reverse order, pack what PackForward and PackBackward do, value for
// value, over buffers filled with NaNs before each.
func TestDirectConvPackParts(t *testing.T) {
	testPacked(t, append(slices.Clone(packForwardGeoms), packBackwardGeoms...), func(t *testing.T, d *DirectConv, w []float32, g directGeom) {
		fillNaN := func(v []float32) {
			for i := range v {
				v[i] = float32(math.NaN())
			}
		}
		fillNaN(d.wf)
		fillNaN(d.wb)
		d.PackForward(w)
		d.PackBackward(w)
		wantF, wantB := slices.Clone(d.wf), slices.Clone(d.wb)
		for _, backward := range []bool{false, true} {
			packed, want := d.wf, wantF
			if backward {
				packed, want = d.wb, wantB
			}
			for parts := 1; parts <= d.PackParts(backward)+2; parts++ {
				fillNaN(packed)
				for p := parts - 1; p >= 0; p-- {
					if backward {
						d.PackBackwardPart(w, p, parts)
					} else {
						d.PackForwardPart(w, p, parts)
					}
				}
				for i := range want {
					if !(packed[i] == want[i] || want[i] != want[i] && packed[i] != packed[i]) {
						t.Fatalf("backward %v, %d parts: [%d] = %v, want %v", backward, parts, i, packed[i], want[i])
					}
				}
			}
		}
	})
}

// TestPackTile checks each implementation's packTile against the
// portable loop: every row height up to the largest tile, a few row
// counts (within a 16-column chunk, across one and beyond), row lengths
// and row steps, forward and backward (ldd < 0), the floats between the
// rows untouched.
func TestPackTile(t *testing.T) {
	for _, im := range available() {
		k := im.direct
		if k == nil {
			continue
		}
		for h := 1; h <= k.mr; h++ {
			for _, n := range []int{1, 2, 9, 16, 25, 37} {
				for _, lda := range []int{n, n + 3, 100} {
					for _, back := range []bool{false, true} {
						ldd := h + 3
						size := n*ldd + 4
						src := randSlice(newRand(uint64(h*131+n*7+lda)), (h-1)*lda+n)
						got, want := make([]float32, size), make([]float32, size)
						for i := range got {
							got[i], want[i] = -1, -1
						}
						first := 0
						if back {
							first, ldd = (n-1)*ldd, -ldd
						}
						k.packTile(&got[first], &src[0], h, n, lda, ldd, 1)
						packTileGo(&want[first], &src[0], h, n, lda, ldd, 1)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s h=%d n=%d lda=%d ldd=%d: [%d] = %v, want %v", im.name, h, n, lda, ldd, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}
