package kernel

import "unsafe"

// Winograd's minimal filtering F(2×2, 3×3) and F(2×2, 5×5) for the direct
// convolution's 3×3 and 5×5 passes.
//
// Forward and BackwardData of a 3×3 kernel with many channels (AlexNet's
// conv3–conv5: 192 to 384 channels a group, 13×13 pixels) compute each
// 2×2 block of outputs from a 4×4 block of the interleaved input as
//
//	Y = Aᵀ [ Σ_c U_c ⊙ V_c ] A,   U_c = G g_c Gᵀ,   V_c = Bᵀ d_c B
//
// with
//
//	Bᵀ = | 1  0 −1  0 |   G = | 1    0    0  |   Aᵀ = | 1  1  1  0 |
//	     | 0  1  1  0 |       | ½    ½    ½  |        | 0  1 −1 −1 |
//	     | 0 −1  1  0 |       | ½   −½    ½  |
//	     | 0  1  0 −1 |       | 0    0    1  |
//
// so that the sum over channels is 16 products (one per position ξ of the
// 4×4 blocks, each a product of the tiles' output channels by their input
// channels) instead of 9·4 multiply-adds per output: 2.25 times fewer.
// Each position's product runs on the forward pass's own tile kernel, its
// "pixels" the blocks, its weights the transformed ones U[ξ] packed as
// the kernel's tiles (by PackForward and PackBackward, from gathers of
// 16 kernels at a time). The input's transform (V) is computed for a pair
// of blocks at a time while its 16 × 2 × channels vectors are in the
// caches and every output channel of a chunk reads them, then the
// products' transform (Y) is written into the chunk's band, which is
// stored as Forward's own; the pooled passes take the whole block's
// interleaved output (winoInterleaved) and pool it as before. The weight
// gradient stays on the direct kernels. A block whose 2×2 outputs would
// pass the last row or column is moved back by one (it overlaps its
// neighbour, whose values for the shared row or column it rewrites), so
// that no block reads past the padded input.
//
// 5×5 kernels with many channels (AlexNet's conv2: 48 a group in, 128
// out, 27×27) take F(2×2, 5×5) the same way: 6×6 blocks of input, 36
// positions, 2.78 times fewer multiply-adds (see wino5BT below); its
// weights are transformed in float64 in Go (winoFilter5), the blocks by
// assembly generated from the matrices.
//
// The sums are not the direct convolution's: the transforms add and
// subtract inputs and weights before they are multiplied, which changes
// the rounding (the outputs agree with float64 sums to a few units in the
// last place of the largest terms; TestWinograd bounds them).

// winoChannels is the fewest input and output channels (of a group) for
// which a 3×3 pass runs on Winograd's transforms: with fewer, the
// transforms cost more than the multiply-adds they save. 0 turns the
// transforms off.
var winoChannels = 64

// winoChannels5 is winoChannels for 5×5 kernels (F(2×2, 5×5), AlexNet's
// conv2: 48 channels a group in, 128 out); 0 turns them off.
var winoChannels5 = 48

// winoChunk is about how many output channels share a pass over the
// transformed input: their transformed weights (16 × chunk × channels
// floats) stay in the L2 cache while every pair of blocks reads them.
var winoChunk = 192

// winoBlocks is how many blocks of 2×2 outputs share a transformed input
// and a pass over the chunk's transformed weights.
var winoBlocks = 2

// planWino turns Winograd's transforms on for the plan where they apply
// (a 3×3 kernel with winoChannels in and out, or a 5×5 one with
// winoChannels5, outputs of at least 2×2, and kernels with the
// transforms) and sizes their buffers and tables.
func (d *DirectConv) planWino() {
	d.wino = false
	k := d.k
	switch {
	case winoChannels <= 0 || d.kh != d.kw:
		return
	case d.kh == 3 && k.winoIn != nil && k.winoFilter != nil && d.c >= winoChannels && d.m >= winoChannels:
		d.wa2, d.wIn, d.wOut = 16, k.winoIn, k.winoOut
	case d.kh == 5 && k.winoIn6 != nil && winoChannels5 > 0 && d.c >= winoChannels5 && d.m >= winoChannels5:
		d.wa2, d.wIn, d.wOut = 36, k.winoIn6, k.winoOut6
	default:
		return
	}
	if d.oh < 2 || d.ow < 2 || d.h < 2 || d.w < 2 {
		return
	}
	L := d.lanes
	n2 := d.wa2
	d.wino = true
	d.uf = make([]float32, d.groups*n2*d.m*d.c)
	d.ub = make([]float32, d.groups*n2*d.c*d.m)
	d.wfChunks = winoChunks(d.fTiles, winoChunk)
	d.wbChunks = winoChunks(d.bTiles, winoChunk)
	most := max(d.c, d.m)
	if d.kh == 3 {
		d.wfIdx = winoTables(d.fTiles, d.c, func(h, j int) int { return j%h*d.c + j/h })
		d.wbIdx = winoTables(d.bTiles, d.m, func(h, j int) int { return j/h*d.c + j%h })
		d.planesF, d.planesFB = winoPlanes(d.m*d.c, false)
		d.planesB, d.planesBB = winoPlanes(d.m*d.c, true)
	}
	d.winoOff = make([]int32, most)
	for c := range d.winoOff {
		d.winoOff[c] = int32(c * L * 4)
	}
	d.wvSize = n2 * winoBlocks * most * L
	d.wmSize = 0
	for _, c := range d.wfChunks {
		d.wmSize = max(d.wmSize, n2*winoBlocks*(c.r1-c.r0)*L)
		d.ySize = max(d.ySize, d.oh*d.ow*(c.r1-c.r0)*L)
	}
	for _, c := range d.wbChunks {
		d.wmSize = max(d.wmSize, n2*winoBlocks*(c.r1-c.r0)*L)
		d.ySize = max(d.ySize, d.h*d.w*(c.r1-c.r0)*L)
	}
	// ForwardPool's whole interleaved block (winoInterleaved).
	d.ySize = max(d.ySize, d.oh*d.ow*d.ms*L)
}

// winoChunks groups tiles into chunks of about most channels (at least
// one tile each).
func winoChunks(ts []dtile, most int) []dchunk {
	var cs []dchunk
	for t0 := 0; t0 < len(ts); {
		t1 := t0 + 1
		for t1 < len(ts) && ts[t1].r0+ts[t1].h-ts[t0].r0 <= most {
			t1++
		}
		cs = append(cs, dchunk{t0, t1, ts[t0].r0, ts[t1-1].r0 + ts[t1-1].h})
		t0 = t1
	}
	return cs
}

// Winograd reports whether Forward and BackwardData run on Winograd's
// transforms (see above).
func (d *DirectConv) Winograd() bool { return d.wino }

// winoFilter sets u[planes[4i+j]] to (G g Gᵀ)[i][j] for the 3×3 kernel g
// (g[3ki+kj]).
func winoFilter(u []float32, planes *[16]int, g []float32) {
	g = g[:9]
	// t = G g: 4×3.
	var t [12]float32
	for j := range 3 {
		a, b, c := g[j], g[3+j], g[6+j]
		t[j] = a
		t[3+j] = (a + b + c) * 0.5
		t[6+j] = (a - b + c) * 0.5
		t[9+j] = c
	}
	// u = t Gᵀ: 4×4.
	for i := range 4 {
		a, b, c := t[3*i], t[3*i+1], t[3*i+2]
		u[planes[4*i]] = a
		u[planes[4*i+1]] = (a + b + c) * 0.5
		u[planes[4*i+2]] = (a - b + c) * 0.5
		u[planes[4*i+3]] = c
	}
}

// winoFilterGo is the portable directKernels.winoFilter: n blocks of 16
// kernels, kernel q of the blocks at src + idx[q] bytes, its U's value ξ
// at dst + planes[ξ] + 4q bytes.
func winoFilterGo(dst *float32, planes *int64, src *float32, idx *int32, n int) {
	pl := unsafe.Slice(planes, 16)
	var fl [16]int
	for x, p := range pl {
		fl[x] = int(p) / 4
	}
	ix := unsafe.Slice(idx, 16*n)
	end := 0
	for x := range fl {
		end = max(end, fl[x])
	}
	u := unsafe.Slice(dst, end+16*n)
	for q, o := range ix {
		var sh [16]int
		for x := range sh {
			sh[x] = fl[x] + q
		}
		winoFilter(u, &sh, unsafe.Slice(at(src, int(o)), 9))
	}
}

// winoTable returns the byte offsets, from the first kernel of a tile of
// h channels, of the kernels whose transforms fill the tile's n
// positions in order: kernel(h, j) is the kernel index (in 9s) of
// position j.
func winoTable(h, n int, kernel func(h, j int) int) []int32 {
	t := make([]int32, n)
	for j := range t {
		t[j] = int32(kernel(h, j) * 9 * 4)
	}
	return t
}

// winoTables returns winoTable for each height of the tiles ts
// (indexed by height).
func winoTables(ts []dtile, per int, kernel func(h, j int) int) [][]int32 {
	var tabs [][]int32
	for _, t := range ts {
		for len(tabs) <= t.h {
			tabs = append(tabs, nil)
		}
		if tabs[t.h] == nil {
			tabs[t.h] = winoTable(t.h, t.h*per, kernel)
		}
	}
	return tabs
}

// winoPlanes sets the planes of the transformed weights, stride floats
// apart: in order (forward), or for the flipped kernels of BackwardData,
// whose U is the forward one's with rows and columns 0 and 3 swapped
// (G J = P G, with J the reversal and P the swap of rows 0 and 3).
func winoPlanes(stride int, flip bool) (fl [16]int, bytes [16]int64) {
	p := [4]int{0, 1, 2, 3}
	if flip {
		p = [4]int{3, 1, 2, 0}
	}
	for i := range 4 {
		for j := range 4 {
			fl[4*i+j] = (4*p[i] + p[j]) * stride
			bytes[4*i+j] = int64(fl[4*i+j] * 4)
		}
	}
	return fl, bytes
}

// winoPack writes the transforms of the n kernels that table names
// (offsets from src) into dst's planes, block by block of 16 kernels
// with the implementation's kernel, the rest one by one.
func (d *DirectConv) winoPack(dst, src []float32, table []int32, planes *[16]int, planeBytes *[16]int64) {
	n := len(table)
	full := n / 16
	if full > 0 {
		d.k.winoFilter(&dst[0], &planeBytes[0], &src[0], &table[0], full)
	}
	for q := full * 16; q < n; q++ {
		var sh [16]int
		for x := range sh {
			sh[x] = planes[x] + q
		}
		winoFilter(dst, &sh, src[table[q]/4:])
	}
}

// packWinoForward transforms the weights of tile t of group g (Caffe's
// layout in w) into d.uf: position ξ's block of the tile at
// (g·n²+ξ)·m·c + r0·c, [c][h].
func (d *DirectConv) packWinoForward(w []float32, g int, t dtile) {
	mc := d.m * d.c
	if d.kh == 5 {
		for c := range d.c {
			for i := range t.h {
				winoFilter5(d.uf[g*36*mc+t.r0*d.c+c*t.h+i:], mc, w[((g*d.m+t.r0+i)*d.c+c)*25:][:25], false)
			}
		}
		return
	}
	d.winoPack(d.uf[g*16*mc+t.r0*d.c:], w[(g*d.m+t.r0)*d.c*9:], d.wfIdx[t.h], &d.planesF, &d.planesFB)
}

// packWinoBackward transforms tile t (of input channels) of group g for
// BackwardData into d.ub: the flipped kernel of output k and input r0+i
// at (g·n²+ξ)·c·m + r0·m + k·h + i.
func (d *DirectConv) packWinoBackward(w []float32, g int, t dtile) {
	mc := d.m * d.c
	if d.kh == 5 {
		for k := range d.m {
			for i := range t.h {
				winoFilter5(d.ub[g*36*mc+t.r0*d.m+k*t.h+i:], mc, w[((g*d.m+k)*d.c+t.r0+i)*25:][:25], true)
			}
		}
		return
	}
	d.winoPack(d.ub[g*16*mc+t.r0*d.m:], w[(g*d.m*d.c+t.r0)*9:], d.wbIdx[t.h], &d.planesB, &d.planesBB)
}

// winoPass computes pass p (Forward's or BackwardData's geometry, a
// kernel of 3×3 or 5×5) with the transformed weights u, a chunk of output
// channels at a time, and stores each chunk into the n images of dst
// (plus bias, if not nil).
func (d *DirectConv) winoPass(p directPass, u []float32, chunks []dchunk, s *DirectScratch, dst []float32, n int, bias []float32) {
	for g := range d.groups {
		for _, ch := range chunks {
			kc := ch.r1 - ch.r0
			d.winoChunk(p, u, g, ch, s, s.y, kc)
			d.storeChunk(s.y, g*p.outs+ch.r0, g*p.outs+ch.r1, p.outAll, 0, p.rows, p.rows, p.width, dst, n, bias, p)
		}
	}
}

// winoInterleaved computes Forward's output of the block xs, every
// channel, into out, interleaved as the forward tiles leave it: pixel
// after pixel, d.ms vectors each.
func (d *DirectConv) winoInterleaved(s *DirectScratch, xs, out []float32) {
	p := d.forwardPass(xs)
	for g := range d.groups {
		for _, ch := range d.wfChunks {
			d.winoChunk(p, d.uf, g, ch, s, out[(g*d.m+ch.r0)*d.lanes:], d.ms)
		}
	}
}

// winoChunk computes the output channels of chunk ch of group g of pass
// p into out, pixel after pixel, stride vectors a pixel, the chunk's
// channels side by side from out[0]: the blocks a pair at a time, their
// input transformed, multiplied by each position's weights, and their
// products transformed into the outputs.
func (d *DirectConv) winoChunk(p directPass, u []float32, g int, ch dchunk, s *DirectScratch, out []float32, stride int) {
	const f = 4
	L := d.lanes
	C, R, W := p.chans, p.rows, p.width
	tc := (W + 1) / 2
	blocks := (R + 1) / 2 * tc
	v, mm := s.wv, s.wm
	origin := func(b int) (int, int) { return min(2*(b/tc), R-2), min(2*(b%tc), W-2) }
	n2 := d.wa2
	ug := u[g*n2*p.outs*C:]
	kc := ch.r1 - ch.r0
	nb := winoBlocks
	for b0 := 0; b0 < blocks; b0 += nb {
		np := min(nb, blocks-b0)
		for q := range np {
			oy, ox := origin(b0 + q)
			d.wIn(&v[q*C*L], nb*C*L*f, &p.in[(oy*p.rowStep+ox*p.pixStep+g*C)*L], p.pixStep*L*f, p.rowStep*L*f, C)
		}
		for xi := range n2 {
			for _, t := range p.tiles[ch.t0:ch.t1] {
				a := ug[xi*p.outs*C+t.r0*C:]
				for k0 := 0; k0 < C; k0 += directKC {
					kb := min(directKC, C-k0)
					d.k.tile(t.h, kb, 1, 0, &a[k0*t.h], &v[xi*nb*C*L], &d.winoOff[k0], C*L*f, &mm[(xi*nb*kc+t.r0-ch.r0)*L], kc*L*f, np, k0 > 0)
				}
			}
		}
		for q := range np {
			oy, ox := origin(b0 + q)
			d.wOut(&out[(oy*W+ox)*stride*L], stride*L*f, W*stride*L*f, &mm[q*kc*L], nb*kc*L*f, kc)
		}
	}
}

// winoInGo is the portable input transform: for n channels, the 4×4
// block of vectors at src (pixels pixStep, rows rowStep bytes apart; a
// channel's vectors one vector after the last's) becomes the 16 vectors
// Bᵀ d B, position ξ at dst + ξ·dstStep bytes (the channels one after
// the other there too).
func winoInGo(lanes int) func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int) {
	return func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int) {
		var d, t [16]float32
		for c := range n {
			for l := range lanes {
				for i := range 4 {
					for j := range 4 {
						d[4*i+j] = *at(src, c*lanes*4+i*rowStep+j*pixStep+l*4)
					}
				}
				for j := range 4 {
					t[j] = d[j] - d[8+j]
					t[4+j] = d[4+j] + d[8+j]
					t[8+j] = d[8+j] - d[4+j]
					t[12+j] = d[4+j] - d[12+j]
				}
				for i := range 4 {
					r := t[4*i:]
					*at(dst, (4*i)*dstStep+c*lanes*4+l*4) = r[0] - r[2]
					*at(dst, (4*i+1)*dstStep+c*lanes*4+l*4) = r[1] + r[2]
					*at(dst, (4*i+2)*dstStep+c*lanes*4+l*4) = r[2] - r[1]
					*at(dst, (4*i+3)*dstStep+c*lanes*4+l*4) = r[1] - r[3]
				}
			}
		}
	}
}

// winoOutGo is the portable output transform: for n channels, the 16
// vectors m[ξ] at src + ξ·srcStep bytes become the 2×2 outputs Aᵀ m A,
// stored at dst (pixels dstPix, rows dstRow bytes apart).
func winoOutGo(lanes int) func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int) {
	return func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int) {
		var m [16]float32
		var s [8]float32
		for c := range n {
			for l := range lanes {
				for x := range 16 {
					m[x] = *at(src, x*srcStep+c*lanes*4+l*4)
				}
				for j := range 4 {
					s[j] = m[j] + m[4+j] + m[8+j]
					s[4+j] = m[4+j] - m[8+j] - m[12+j]
				}
				for i := range 2 {
					r := s[4*i:]
					*at(dst, i*dstRow+c*lanes*4+l*4) = r[0] + r[1] + r[2]
					*at(dst, i*dstRow+dstPix+c*lanes*4+l*4) = r[1] - r[2] - r[3]
				}
			}
		}
	}
}

// Winograd reports whether the kernels in use run the direct
// convolution's 3×3 passes of many channels on Winograd's transforms.
func Winograd() bool {
	return winoChannels > 0 && active.direct != nil && active.direct.winoIn != nil && active.direct.winoFilter != nil
}

// F(2×2, 5×5), Toom-Cook at the points 0, 1, −1, 2, −½ and ∞, whose
// rounding in float32 stays near the direct sums' (those points gave
// half the error of 0, ±1, ±2 over 48 channels):
//
//	Bᵀ = | 1  3/2  −2  −3/2   1   0 |   Aᵀ = | 1 1  1 1   1  0 |
//	     | 0  −1  −5/2 −1/2   1   0 |        | 0 1 −1 2 −1/2 1 |
//	     | 0   1   1/2 −5/2   1   0 |
//	     | 0 −1/2  −1   1/2   1   0 |   G = rows (1, 0, 0, 0, 0),
//	     | 0   2   −1   −2    1   0 |   −⅓(1, 1, 1, 1, 1), ⅓(1, −1, 1, −1, 1),
//	     | 0   1   3/2  −2  −3/2  1 |   (1, 2, 4, 8, 16)/15,
//	                                     (−16, 8, −4, 2, −1)/15, (0, 0, 0, 0, 1)
var (
	wino5BT = [6][6]float32{
		{1, 1.5, -2, -1.5, 1, 0},
		{0, -1, -2.5, -0.5, 1, 0},
		{0, 1, 0.5, -2.5, 1, 0},
		{0, -0.5, -1, 0.5, 1, 0},
		{0, 2, -1, -2, 1, 0},
		{0, 1, 1.5, -2, -1.5, 1},
	}
	wino5AT = [2][6]float32{{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -0.5, 1}}
)

// winoRow is Σ_k c[k]·x(k) in the transforms' order, which the assembly
// repeats: the terms in turn, zero coefficients skipped, each term |c|·x
// (x itself for ±1) added or subtracted, the first one taken as it is or
// from 0.
func winoRow(c []float32, x func(k int) float32) float32 {
	var acc float32
	first := true
	for k, ck := range c {
		if ck == 0 {
			continue
		}
		v := x(k)
		if a := winoAbs(ck); a != 1 {
			v = a * v
		}
		switch {
		case first && ck < 0:
			acc = 0 - v
		case first:
			acc = v
		case ck < 0:
			acc -= v
		default:
			acc += v
		}
		first = false
	}
	return acc
}

func winoAbs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// winoIn6Go is winoInGo for F(2×2, 5×5): each channel's 6×6 block of
// vectors becomes the 36 vectors Bᵀ d B, position ξ = 6i+l at dst +
// ξ·dstStep bytes.
func winoIn6Go(lanes int) func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int) {
	return func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int) {
		var d, t [6][6]float32
		for c := range n {
			for l := range lanes {
				o := c*lanes*4 + l*4
				for i := range 6 {
					for j := range 6 {
						d[i][j] = *at(src, o+i*rowStep+j*pixStep)
					}
				}
				for i := range 6 {
					for j := range 6 {
						t[i][j] = winoRow(wino5BT[i][:], func(k int) float32 { return d[k][j] })
					}
				}
				for i := range 6 {
					for q := range 6 {
						*at(dst, (6*i+q)*dstStep+o) = winoRow(wino5BT[q][:], func(j int) float32 { return t[i][j] })
					}
				}
			}
		}
	}
}

// winoOut6Go is winoOutGo for F(2×2, 5×5): each channel's 36 products
// become the 2×2 outputs Aᵀ m A.
func winoOut6Go(lanes int) func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int) {
	return func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int) {
		var m [36]float32
		var s [2][6]float32
		for c := range n {
			for l := range lanes {
				o := c*lanes*4 + l*4
				for x := range 36 {
					m[x] = *at(src, x*srcStep+o)
				}
				for i := range 2 {
					for j := range 6 {
						s[i][j] = winoRow(wino5AT[i][:], func(k int) float32 { return m[6*k+j] })
					}
				}
				for i := range 2 {
					for q := range 2 {
						*at(dst, i*dstRow+q*dstPix+o) = winoRow(wino5AT[q][:], func(j int) float32 { return s[i][j] })
					}
				}
			}
		}
	}
}

// winoFilter5 sets u[ξ·stride] to (G g Gᵀ)[i][l] (ξ = 6i+l) for the 5×5
// kernel g, flipped in both axes if flip, computed in float64 (the
// weights' transform runs once a pass, and G's thirds and fifteenths are
// not floats), by G's rows: the first and last pick a value, the second
// and third take the sums of the even and odd terms, the fourth and
// fifth the powers of 2.
func winoFilter5(u []float32, stride int, g []float32, flip bool) {
	var k [25]float64
	for e := range 25 {
		if flip {
			k[e] = float64(g[24-e])
		} else {
			k[e] = float64(g[e])
		}
	}
	// t = G g, column by column; then u = t Gᵀ, row by row.
	var t [6][5]float64
	for j := range 5 {
		g0, g1, g2, g3, g4 := k[j], k[5+j], k[10+j], k[15+j], k[20+j]
		t[0][j], t[1][j], t[2][j], t[3][j], t[4][j], t[5][j] = winoG5(g0, g1, g2, g3, g4)
	}
	for i := range 6 {
		r := &t[i]
		u0, u1, u2, u3, u4, u5 := winoG5(r[0], r[1], r[2], r[3], r[4])
		o := 6 * i * stride
		u[o] = float32(u0)
		u[o+stride] = float32(u1)
		u[o+2*stride] = float32(u2)
		u[o+3*stride] = float32(u3)
		u[o+4*stride] = float32(u4)
		u[o+5*stride] = float32(u5)
	}
}

// winoG5 returns G·(a, b, c, d, e) for F(2×2, 5×5)'s G (above;
// TestWinoG5 checks it against the matrix).
func winoG5(a, b, c, d, e float64) (float64, float64, float64, float64, float64, float64) {
	even, odd := a+c+e, b+d
	return a, -(even + odd) / 3, (even - odd) / 3, (a + 2*b + 4*c + 8*d + 16*e) / 15, (-16*a + 8*b - 4*c + 2*d - e) / 15, e
}
