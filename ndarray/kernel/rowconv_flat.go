package kernel

import "unsafe"

// The weight gradient of a large image on flat rows.
//
// The row layout's weight gradient reads its padded copy of the image
// once for every tile of output channels, which suits an image that stays
// in the L1 cache (CIFAR-10 quick's first layer) but not a large one
// (AlexNet's 227×227: 720 KB), whose rows of 55 outputs also fill only 55
// of the 64 lanes of four vectors. For those the gradient runs on flat
// rows with the output channels in the lanes: the image is copied split
// into stride phases along both axes, input pixel (y, x) of channel c in
// plane (c, y mod strideH, x mod strideW) at row y div strideH, column
// x div strideW, each plane's rows flatQ = outW + (kw-1) div strideW
// floats apart, so that output pixel (oy, ox) meets, for weight
// (c, ki, kj), the copy's float
//
//	plane(c, ki mod strideH, kj mod strideW) + (ki div strideH + oy)·flatQ + kj div strideW + ox,
//
// a run of outW floats along an output row. The output gradient of a band
// of output rows is transposed pixel-major (the direct convolution's
// interleave), every output channel of a pixel side by side in whole
// vectors (the channels rounded up to a vector, zeros past them), and the
// kernels broadcast each input value a weight meets into the vectors of
// channels: aligned loads, no lanes wasted on the rows' ends, and sums
// that each hold one weight's gradient of a vector of output channels,
// over the pixels of the band, the bands and the images in order. The
// weights are taken plane by plane (flatPerm), so that the ones a call
// reads in turn share their lines of the copy in the L1 cache; the band's
// transposed gradient stays there while every weight reads it.

// flatBand is about how many bytes of the transposed output gradient a
// band holds (at least one output row).
const flatBand = 20 << 10

// planFlat plans the flat weight gradient, or leaves d.flat false if the
// kernels have none or its rows would waste more than a fifth of the
// forward pass's lanes.
func (d *RowConv) planFlat() {
	L := d.k.lanes
	q := d.ow + (d.kw-1)/d.sw
	if d.k.gradT == nil || 4*q > 5*d.ow {
		return
	}
	d.flat, d.flatQ = true, q
	d.flatR = d.oh + (d.kh-1)/d.sh
	planes := d.c * d.sh * d.sw
	// The bias slot's region of ones is read as far as the last row's
	// end; the forward pass's vectors read further (planFlatForward).
	d.fxSize = planes*d.flatR*q + q + L
	d.flatMp = (d.m + L - 1) / L * L
	d.flatRows = max(1, min(d.oh, flatBand/(4*d.ow*d.flatMp)))
	d.accSize = d.kp * d.flatMp
	d.dypSize = 0
	d.planFlatCols()
	d.flatOff = d.flatOff[:0]
	d.flatPerm = d.flatPerm[:0]
	for c := range d.c {
		for a := range d.sh {
			for b := range d.sw {
				plane := ((c*d.sh+a)*d.sw + b) * d.flatR * q
				for ki := a; ki < d.kh; ki += d.sh {
					for kj := b; kj < d.kw; kj += d.sw {
						d.flatOff = append(d.flatOff, int32((plane+ki/d.sh*q+kj/d.sw)*4))
						d.flatPerm = append(d.flatPerm, (c*d.kh+ki)*d.kw+kj)
					}
				}
			}
		}
	}
	for len(d.flatOff) < d.kp {
		d.flatOff = append(d.flatOff, d.flatOff[len(d.flatOff)-1])
	}
}

// flatScratch is the floats of the flat gradient's buffer after the
// sums: a band of transposed output gradient.
func (d *RowConv) flatScratch() int {
	if !d.flat {
		return 0
	}
	return flatAlign + d.flatRows*d.ow*d.flatMp
}

// flatAlign is the most floats skipped to start the band of output
// gradient on a cache line: its loads then do not split lines.
const flatAlign = 15

// alignLine returns buf from its first float on a 64-byte line, skipping
// at most flatAlign floats.
func alignLine(buf []float32) []float32 {
	return buf[(64-uintptr(unsafe.Pointer(&buf[0]))%64)%64/4:]
}

// loadFlat writes the image x into its flat copy xf (zero where nothing
// is written). With stride 4 along the rows (AlexNet's), the four phases
// of a row are written in one pass over it (deinterleave4), blocks of
// quads by the kernels' shuffles where they have them.
func (d *RowConv) loadFlat(xf, x []float32) {
	q, pr := d.flatQ, d.flatR*d.flatQ
	var phases [4][]float32
	for c := range d.c {
		// Input row r lies in row phase a at row i of its plane.
		a, i := d.padH%d.sh, d.padH/d.sh
		for r := range d.h {
			if i >= d.flatR {
				break
			}
			src := x[(c*d.h+r)*d.w:][:d.w]
			plane := (c*d.sh + a) * d.sw
			for b, fc := range d.flatCols {
				var dst []float32
				if fc.n > 0 {
					dst = xf[(plane+b)*pr+i*q+fc.j:][:fc.n]
				}
				if d.sw == 4 {
					phases[fc.col] = dst
				} else if dst != nil {
					gather(dst, src[fc.col:][:(len(dst)-1)*d.sw+1], d.sw)
				}
			}
			if d.sw == 4 {
				deinterleave4(d.k, &phases, src)
			}
			if a++; a == d.sh {
				a, i = 0, i+1
			}
		}
	}
}

// flatCol is where a column phase of the image's rows lies in the flat
// copy: phase b (of the padded columns) starts at image column col,
// column j of its plane's rows, and holds n of the row's values (none if
// zero).
type flatCol struct{ col, j, n int }

// planFlatCols sets d.flatCols, the column phases of the flat copy.
func (d *RowConv) planFlatCols() {
	d.flatCols = d.flatCols[:0]
	for b := range d.sw {
		col := ((b-d.padW)%d.sw + d.sw) % d.sw
		fc := flatCol{col: col, j: (col + d.padW) / d.sw}
		if col < d.w && fc.j < d.flatQ {
			fc.n = min((d.w-col+d.sw-1)/d.sw, d.flatQ-fc.j)
		}
		d.flatCols = append(d.flatCols, fc)
	}
}

// deinterleave4 sets p[k][t] = src[4t+k] for k < 4, t < len(p[k]); src
// holds those values. The quads that every phase takes go through
// kern.deint where the kernels have it (blocks of quads by shuffles).
func deinterleave4(kern *rowKernels, p *[4][]float32, src []float32) {
	d0, d1, d2, d3 := p[0], p[1], p[2], p[3]
	m := min(len(d0), len(d1), len(d2), len(d3))
	if m > 0 && kern != nil && kern.deint != nil {
		_ = src[4*m-1]
		kern.deint(&d0[0], &d1[0], &d2[0], &d3[0], &src[0], m)
	} else if m > 0 {
		src := src[:4*m]
		d0, d1, d2, d3 := d0[:m], d1[:m], d2[:m], d3[:m]
		for t := range d0 {
			s := src[4*t : 4*t+4 : 4*t+4]
			d0[t], d1[t], d2[t], d3[t] = s[0], s[1], s[2], s[3]
		}
	}
	for k, dst := range p {
		for t := m; t < len(dst); t++ {
			dst[t] = src[4*t+k]
		}
	}
}

// gradAddFlat adds the weight gradient of n images on flat rows to the
// sums acc (weight by weight, flatMp floats each: see GradAdd); xf is the
// flat copy, dyb holds a band of transposed output gradient.
func (d *RowConv) gradAddFlat(acc, xf, dyb, x, dy []float32, n int) {
	const f = 4
	L, P, q, mp := d.k.lanes, d.oh*d.ow, d.flatQ, d.flatMp
	dyb = alignLine(dyb)
	for j := range n {
		d.loadFlat(xf, x[j*d.c*d.h*d.w:])
		g := dy[j*d.m*P : (j+1)*d.m*P]
		for r0 := 0; r0 < d.oh; r0 += d.flatRows {
			nr := min(d.flatRows, d.oh-r0)
			for c0 := 0; c0 < mp; c0 += L {
				d.k.trans(&dyb[c0], mp*f, &g[c0*P+r0*d.ow], P*f, nr*d.ow, min(L, d.m-c0))
			}
			// The next band's output gradient (the next image's first)
			// on its way into the cache while this band's sums run.
			if d.k.prefetch != nil {
				if r1 := r0 + nr; r1 < d.oh {
					d.k.prefetch(&g[r1*d.ow], P*f, d.m, min(d.flatRows, d.oh-r1)*d.ow*f)
				} else if j+1 < n {
					d.k.prefetch(&dy[(j+1)*d.m*P], P*f, d.m, min(d.flatRows, d.oh)*d.ow*f)
				}
			}
			for c0 := 0; c0 < mp; c0 += d.k.gtm * L {
				mr := min(d.k.gtm, (mp-c0)/L)
				for k := 0; k < d.kp; k += d.k.gnr {
					d.k.gradT(mr, &dyb[c0], mp*f, &xf[r0*q], &d.flatOff[k], (q-d.ow)*f, nr, d.ow, &acc[k*mp+c0], mp*f)
				}
			}
		}
	}
}

// gradEndFlat adds the sums acc to dw, weight by weight in Caffe's order,
// and, if db is not nil, the bias slot's to db.
func (d *RowConv) gradEndFlat(acc, dw, db []float32) {
	mp := d.flatMp
	for j, k := range d.flatPerm {
		s := acc[j*mp:][:d.m]
		for r, v := range s {
			dw[r*d.kk+k] += v
		}
	}
	if db != nil {
		for r, v := range acc[d.kk*mp:][:d.m] {
			db[r] += v
		}
	}
}

// The forward pass on flat rows.
//
// Where flat rows fill more of the lanes than the row layout's (AlexNet:
// 57 floats a row against 64), Forward runs on the flat copy too: a call
// (rowKernels.flat) computes fnv vectors of flat output pixels of a tile
// of up to fmr output channels (AVX-512: 8 channels × 3 vectors, fewer
// vectors than the row kernels' 4, so that fewer of the input's loads,
// which mostly lie across cache lines, meet each weight), weight by
// weight in Caffe's order through flatFwdOff, into a band of the tile's
// pixels, whose outputs (not the zeros' columns past a row's end) are
// then copied out. The sums are the same products in the same order as
// the row layout's and the column path's.

// FlatForward reports whether Forward runs on flat rows.
func (d *RowConv) FlatForward() bool { return d.flatFwd }

// planFlatForward switches the forward pass to flat rows when the
// kernels have them and they waste fewer lanes than the row layout's
// rows.
func (d *RowConv) planFlatForward() {
	if !d.flat || d.k.flat == nil || d.flatQ >= d.owp {
		return
	}
	d.flatFwd = true
	d.tiles = tiles(d.m, d.k.fmr)
	d.flatFwdOff = make([]int32, d.kk)
	for j, k := range d.flatPerm {
		d.flatFwdOff[k] = d.flatOff[j]
	}
	// The last group of vectors reads up to a group's floats past the
	// flat pixels.
	d.fxSize = max(d.fxSize, d.c*d.sh*d.sw*d.flatR*d.flatQ+d.flatQ+d.k.fnv*d.k.lanes)
}

// forwardFlat is Forward on flat rows; band holds fmr·fnv·L floats. With
// relu, the band's outputs are rectified (as Relu with slope) before they
// are copied out.
func (d *RowConv) forwardFlat(xf, band, x, y, bias []float32, relu bool, slope float32) {
	d.loadFlat(xf, x)
	const f = 4
	P, q := d.oh*d.ow, d.flatQ
	G := d.k.fnv * d.k.lanes // flat pixels per call
	T := d.oh * q
	// Tile by tile, group by group of pixels, each copied out after its
	// last run of weights: the tile's weights and a small band stay in
	// the L1 cache beside the input the groups read in turn.
	for _, t := range d.tiles {
		for p0 := 0; p0 < T; p0 += G {
			for r := 0; r+1 < len(d.kcut); r++ {
				k0, k1 := d.kcut[r], d.kcut[r+1]
				var b *float32
				if bias != nil && k1 == d.kk {
					b = &bias[t.r0]
				}
				d.k.flat(t.h, k1-k0, &d.wp[t.r0*d.kk+k0*t.h], &xf[p0], &d.flatFwdOff[k0], &band[0], G*f, b, k0 > 0)
			}
			if relu {
				out := band[:t.h*G]
				Relu(out, out, slope)
			}
			// Copy out the outputs among the group's pixels, row piece
			// by row piece.
			for p := p0; p < min(p0+G, T); {
				oy, ox := p/q, p%q
				end := min(p0+G, (oy+1)*q)
				if ox < d.ow {
					n := min(end, oy*q+d.ow) - p
					CopyRows(y[t.r0*P+oy*d.ow+ox:], P, band[p-p0:], G, t.h, n)
				}
				p = end
			}
		}
	}
}

// gather sets dst[i] = src[i·stride] for i < len(dst); src holds
// (len(dst)-1)·stride+1 floats.
func gather(dst, src []float32, stride int) {
	switch stride {
	case 1:
		copy(dst, src)
	case 4:
		for len(dst) >= 4 && len(src) >= 16 {
			s := src[:16:16]
			d := dst[:4:4]
			d[0], d[1], d[2], d[3] = s[0], s[4], s[8], s[12]
			dst, src = dst[4:], src[16:]
		}
		fallthrough
	default:
		for i := range dst {
			dst[i] = src[i*stride]
		}
	}
}
