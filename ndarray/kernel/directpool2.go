package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// Pooling of any window on the direct convolution's interleaved blocks.
//
// NewPool extends the max pooling of directpool.go to windows that
// overlap or are clipped at the output's bottom and right edges (Caffe's
// rounded-up output size without padding: CIFAR-10 quick's 3×3 windows of
// stride 2), to average pooling, and to an in-place rectifier between the
// convolution and the pooling. The forward pass keeps the block's output
// rows interleaved in the scratch, so that a band's windows find the rows
// of the band before; the rectifier's outcome (which values were
// positive) stays interleaved beside the pooling's mask, one bit per
// image, so that the backward pass
// routes the pooling's gradient, and then the rectifier's, straight into
// the interleaved output gradient (LoadGradPooled) that BackwardData and
// WeightGradLoaded read, writing the convolution's output gradient in
// Caffe's layout on the way.
//
// The results are those of the layers one by one (Caffe's ReLU, then the
// pooling of its stored output, and their backward passes in the order
// of the plane kernels, AvePoolBackwardPlane and MaxPoolBackwardPlane):
//
//   - MAX: the first maximal element of a window in row-major order wins;
//     the gradient of an element is 0 plus the gradients of the windows
//     that chose it, in the order of the outputs.
//   - AVE: a window's sum, added in row-major order from zero, divided by
//     its size clipped to the output; the gradient of an element is the
//     sum, over the rows of windows covering it in order, of that row's
//     spread row (its windows' gradients divided by their sizes, added
//     from zero in the order of the windows), the first as it is.
//   - ReLU: Relu's and ReluGrad's rules with a slope >= 0.

// NewPool plans a MAX (ave false) or AVE pooling of d's output into
// ph×pw outputs with kh×kw windows and stride sh×sw, no padding, after an
// in-place rectifier with the given negative slope when relu is set. Every
// window must start inside the output and every output row and column
// must be covered by the windows' extent, as in Caffe's pooling (ph and
// pw rounded up or down). A plain max pooling that NewMaxPool takes gets
// its plan. NewPool returns nil where the interleaved pooling does not
// apply (the kernels lack it, a negative or NaN slope, bad sizes).
func (d *DirectConv) NewPool(ave bool, kh, kw, sh, sw, ph, pw int, relu bool, slope float32) *DirectPool {
	if !ave && !relu {
		if p := d.NewMaxPool(kh, kw, sh, sw, ph, pw); p != nil {
			return p
		}
	}
	if d.k.avePool == nil || kh < 1 || kw < 1 || sh < 1 || sw < 1 || ph < 1 || pw < 1 ||
		(ph-1)*sh >= d.oh || (pw-1)*sw >= d.ow || (relu && !(slope >= 0)) ||
		int64(d.oh)*int64(d.ow) > math.MaxInt32 {
		return nil
	}
	inner := 0
	if d.ow >= kw {
		inner = min(pw, (d.ow-kw)/sw+1)
	}
	p := &DirectPool{
		d: d, kh: kh, kw: kw, sh: sh, sw: sw, ph: ph, pw: pw,
		band:     d.bandRows(d.ow, d.ms),
		general:  true,
		ave:      ave,
		relu:     relu,
		slope:    slope,
		inner:    inner,
		poolSize: d.mAll * ph * pw,
	}
	if !ave {
		p.idxSize = ph * pw * d.mAll * d.lanes
	}
	p.maskSize = p.idxSize
	if relu {
		// One int32 of bits per vector of the output's layout (the
		// padding vector of each pixel included, its bits clear).
		p.maskSize += d.oh * d.ow * d.ms
	}
	if p.maskSize == 0 {
		p.maskSize = 1
	}
	p.negZero = make([]float32, d.mAll)
	for i := range p.negZero {
		p.negZero[i] = float32(math.Copysign(0, -1))
	}
	return p
}

// General reports whether the plan is NewPool's, whose backward pass is
// LoadGradPooled followed by BackwardData and WeightGradLoaded (not
// WeightGradPooled).
func (p *DirectPool) General() bool { return p.general }

// rows returns the output rows [h0, h1) of window row r.
func (p *DirectPool) rows(r int) (int, int) {
	return r * p.sh, min(r*p.sh+p.kh, p.d.oh)
}

// forwardPoolGeneral is ForwardPool for NewPool's plans, on the input
// interleaved in xs.
func (d *DirectConv) forwardPoolGeneral(s *DirectScratch, xs []float32, n int, y, bias []float32, p *DirectPool, py []float32, mask []int32) {
	L, f := d.lanes, 4
	rowLen := d.ow * d.ms * L
	// The whole output block stays in s.y, a band of rows after the
	// other, so that the windows of a band's last rows find the rows
	// before it where they were computed.
	if need := d.oh * rowLen; len(s.y) < need {
		s.y = make([]float32, need)
	}
	if need := (p.band/p.sh + 2) * p.pw * d.ms * L; len(s.pool) < need {
		s.pool = make([]float32, need)
	}
	negZero := p.negZero[0] // x + −0 is x for every x
	bits := mask[p.idxSize:]
	next := 0 // the next window row
	if d.wino {
		// Winograd's blocks of 2×2 outputs cross the bands: the whole
		// output block first.
		d.winoInterleaved(s, xs, s.y)
	}
	for yc := 0; yc < d.oh; yc += p.band {
		y1 := min(d.oh, yc+p.band)
		out := s.y[yc*rowLen:]
		if !d.wino {
			d.convolveBandTo(out, xs, yc, y1)
		}
		if p.relu {
			for c := range d.mAll {
				var bc float32
				if bias != nil {
					bc = bias[c]
				}
				d.k.biasRelu(&out[c*L], d.ms*L*f, (y1-yc)*d.ow, &bits[yc*d.ow*d.ms+c], d.ms*f, bc, p.slope)
			}
			if y != nil {
				d.store(out, d.mAll, d.ms, yc, y1, d.oh, d.ow, y, n, p.negZero, directPoolStream)
			}
		} else if y != nil {
			d.store(out, d.mAll, d.ms, yc, y1, d.oh, d.ow, y, n, bias, directPoolStream)
		}
		// The window rows that end in the band.
		r0, r1 := next, next
		for r1 < p.ph {
			if _, h1 := p.rows(r1); h1 > y1 {
				break
			}
			r1++
		}
		next = r1
		if r0 == r1 {
			continue
		}
		if need := (r1 - r0) * p.pw * d.ms * L; len(s.pool) < need {
			s.pool = make([]float32, need)
		}
		for c := range d.mAll {
			bc := negZero
			if !p.relu && bias != nil {
				bc = bias[c]
			}
			for r := r0; r < r1; r++ {
				h0, h1 := p.rows(r)
				src := s.y[(h0*d.ow*d.ms+c)*L:]
				dst := s.pool[((r-r0)*p.pw*d.ms+c)*L:]
				for o := 0; o < p.pw; {
					cols, k := p.kw, p.inner
					if o >= p.inner {
						cols, k = d.ow-o*p.sw, 1
					}
					if p.ave {
						d.k.avePool(&dst[o*d.ms*L], d.ms*L*f, &src[o*p.sw*d.ms*L], d.ms*L*f, rowLen*f, k, h1-h0, cols, p.sw, bc, float32((h1-h0)*cols))
					} else {
						d.k.maxPool(&dst[o*d.ms*L], d.ms*L*f, &mask[((r*p.pw+o)*d.mAll+c)*L], d.mAll*L*f, &src[o*p.sw*d.ms*L], d.ms*L*f, rowLen*f,
							k, h1-h0, cols, p.sw, int32(h0*d.ow+o*p.sw), int32(d.ow), bc)
					}
					o += k
				}
			}
			d.k.deinterleave(&py[(c*p.ph+r0)*p.pw], p.poolSize*f, &s.pool[c*L], d.ms*L*f, (r1-r0)*p.pw, n, negZero)
		}
	}
}

// loadGradGeneral is LoadGradPooled for NewPool's plans. It works a row
// of output pixels (all channels, one run of vectors) at a time where it
// can: the averaging windows' spread rows of all channels are built in
// one row of vectors and stored or added to the gradient's rows whole,
// the rectifier's gradient runs along whole rows; only the max pooling's
// routing and the final deinterleave go a channel at a time.
func (d *DirectConv) loadGradGeneral(s *DirectScratch, p *DirectPool, pdy []float32, mask []int32, n int, dy, db []float32) {
	L, f := d.lanes, 4
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	PP := p.ph * p.pw
	row := d.ow * d.ms * L // one output row of vectors
	if need := d.mAll*PP*L + row; len(s.pool) < need {
		s.pool = make([]float32, need)
	}
	g, sp := s.pool[:d.mAll*PP*L], s.pool[d.mAll*PP*L:d.mAll*PP*L+row]
	rowStep := d.dw * d.ms * L
	pix := d.ms * L
	base := s.dy[(p0*d.dw+p1)*d.ms*L:]
	bits := mask[p.idxSize:]
	negZero := p.negZero[0]
	for c := range d.mAll {
		d.k.interleave(&g[c*PP*L], L*f, &pdy[c*PP], p.poolSize*f, PP, n)
	}
	clear(sp)
	if p.ave {
		covered := 0 // output rows [0, covered) hold gradients
		for r := range p.ph {
			h0, h1 := p.rows(r)
			if r > 0 {
				clear(sp)
			}
			if h0 > covered {
				d.k.putRows(&base[covered*rowStep], L*f, rowStep*f, &sp[0], d.ow*d.ms, h0-covered, false)
				covered = h0
			}
			for c := range d.mAll {
				for o := 0; o < p.pw; {
					cols, k := p.kw, p.inner
					if o >= p.inner {
						cols, k = d.ow-o*p.sw, 1
					}
					d.k.spreadAve(&sp[o*p.sw*pix+c*L], pix*f, &g[(c*PP+r*p.pw+o)*L], L*f, k, cols, p.sw, float32((h1-h0)*cols))
					o += k
				}
			}
			if covered > h0 {
				d.k.putRows(&base[h0*rowStep], L*f, rowStep*f, &sp[0], d.ow*d.ms, covered-h0, true)
			}
			if h1 > covered {
				d.k.putRows(&base[covered*rowStep], L*f, rowStep*f, &sp[0], d.ow*d.ms, h1-covered, false)
				covered = h1
			}
		}
		if covered < d.oh {
			clear(sp)
			d.k.putRows(&base[covered*rowStep], L*f, rowStep*f, &sp[0], d.ow*d.ms, d.oh-covered, false)
		}
	} else {
		d.k.putRows(&base[0], L*f, rowStep*f, &sp[0], d.ow*d.ms, d.oh, false)
		for r := range p.ph {
			h0, h1 := p.rows(r)
			for c := range d.mAll {
				dst := base[c*L:]
				for o := 0; o < p.pw; {
					cols, k := p.kw, p.inner
					if o >= p.inner {
						cols, k = d.ow-o*p.sw, 1
					}
					d.k.unpoolAdd(&dst[h0*rowStep+o*p.sw*pix], pix*f, rowStep*f, &g[(c*PP+r*p.pw+o)*L], L*f,
						&mask[((r*p.pw+o)*d.mAll+c)*L], d.mAll*L*f, k, h1-h0, cols, p.sw, int32(h0*d.ow+o*p.sw), int32(d.ow))
					o += k
				}
			}
		}
	}
	if p.relu {
		for y := range d.oh {
			d.k.reluGradBits(&base[y*rowStep], L*f, d.ow*d.ms, &bits[y*d.ow*d.ms], f, p.slope)
		}
	}
	if dy != nil {
		for c := range d.mAll {
			for y := range d.oh {
				d.k.deinterleave(&dy[(c*d.oh+y)*d.ow], d.outSize*f, &base[y*rowStep+c*L], pix*f, d.ow, n, negZero)
			}
		}
	}
	if db != nil {
		// Each channel's plane where it lies, its pixels at the offsets
		// of gradOffs: the sums Sum makes of the planes dy would hold
		// (the deinterleave adds −0, which changes no value).
		for c := range d.mAll {
			d.k.planeSumsAt(&s.sums[0], &base[c*L], &d.gradOffs[0], pix*f, d.oh*d.ow)
			for j := range n {
				db[c] += s.sums[j]
			}
		}
	}
	s.n, s.tiled = n, false
}

// gradOffsets returns where an output channel's pixels lie in the padded
// pixel-major output gradient (LoadGrad's layout), row by row, in pixels
// from its first pixel (each pixel d.ms vectors).
func (d *DirectConv) gradOffsets() []int32 {
	offs := make([]int32, d.oh*d.ow)
	for y := range d.oh {
		for x := range d.ow {
			offs[y*d.ow+x] = int32(y*d.dw + x)
		}
	}
	return offs
}

// WeightGradLoaded is WeightGrad for the output gradient that
// LoadGradPooled (or LoadGrad) put in s: it adds to dw the weight
// gradient of the n images x, the kernels reading the output gradient
// from s (where it lies, or copied tile by tile where its pixels lie far
// apart) instead of interleaving it again from Caffe's layout.
func (d *DirectConv) WeightGradLoaded(s *DirectScratch, x []float32, n int, dw []float32) {
	d.check("WeightGradLoaded", s, nil, 0, n, len(x), n*d.imgSize, len(dw), d.mAll*d.kk)
	d.loaded("WeightGradLoaded", s, n)
	d.weightGrad(s, x, nil, n, dw, nil, nil, nil, nil)
}

// tilesFromLoaded copies group g's output gradient from s.dy (LoadGrad's
// layout) into the weight gradient's, tile by tile.
func (d *DirectConv) tilesFromLoaded(s *DirectScratch, g int) {
	L := d.lanes
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	P := d.oh * d.ow
	for _, t := range d.gTiles {
		dst := s.dyp[t.r0*P*L:]
		v := t.h * L
		for y := range d.oh {
			src := s.dy[(((y+p0)*d.dw+p1)*d.ms+g*d.m+t.r0)*L:]
			for x := range d.ow {
				copy(dst[(y*d.ow+x)*v:(y*d.ow+x+1)*v], src[x*d.ms*L:x*d.ms*L+v])
			}
		}
	}
}

func goDirectBiasRelu(lanes int) func(dst *float32, pixStep, n int, bits *int32, bitsStep int, bias, slope float32) {
	return func(dst *float32, pixStep, n int, bits *int32, bitsStep int, bias, slope float32) {
		for o := range n {
			var m int32
			for l := range lanes {
				p := at(dst, o*pixStep+4*l)
				v := *p + bias
				if !(v > 0) {
					v = v*slope + 0
				}
				if v > 0 {
					m |= 1 << l
				}
				*p = v
			}
			*(*int32)(unsafe.Add(unsafe.Pointer(bits), o*bitsStep)) = m
		}
	}
}

func goDirectReluGradBits(lanes int) func(dst *float32, pixStep, n int, bits *int32, bitsStep int, slope float32) {
	return func(dst *float32, pixStep, n int, bits *int32, bitsStep int, slope float32) {
		for o := range n {
			m := *(*int32)(unsafe.Add(unsafe.Pointer(bits), o*bitsStep))
			for l := range lanes {
				if m&(1<<l) == 0 {
					*at(dst, o*pixStep+4*l) *= slope
				}
			}
		}
	}
}

func goDirectPoolAve(lanes int) func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, bias, div float32) {
	return func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, bias, div float32) {
		for o := range n {
			for l := range lanes {
				var s float32
				for i := range kh {
					for j := range kw {
						s += *at(src, (o*sw+j)*pixStep+i*rowStep+4*l) + bias
					}
				}
				*at(dst, o*dstStep+4*l) = s / div
			}
		}
	}
}

func goDirectUnpoolAdd(lanes int) func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32) {
	return func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32) {
		for o := range n {
			for l := range lanes {
				g := *at(grad, o*gradStep+4*l)
				m := *(*int32)(unsafe.Add(unsafe.Pointer(arg), o*argStep+4*l))
				for i := range kh {
					for j := range kw {
						if m == base+int32(o*sw+j)+int32(i)*ld {
							*at(dst, (o*sw+j)*pixStep+i*rowStep+4*l) += g
						}
					}
				}
			}
		}
	}
}

func goDirectSpreadAve(lanes int) func(sp *float32, spStep int, grad *float32, gradStep, n, kw, sw int, div float32) {
	return func(sp *float32, spStep int, grad *float32, gradStep, n, kw, sw int, div float32) {
		for o := range n {
			for l := range lanes {
				v := *at(grad, o*gradStep+4*l) / div
				for j := range kw {
					*at(sp, (o*sw+j)*spStep+4*l) += v
				}
			}
		}
	}
}

func goDirectPutRows(lanes int) func(dst *float32, pixStep, rowStep int, src *float32, n, rows int, add bool) {
	return func(dst *float32, pixStep, rowStep int, src *float32, n, rows int, add bool) {
		for i := range rows {
			for o := range n {
				for l := range lanes {
					p := at(dst, i*rowStep+o*pixStep+4*l)
					v := *at(src, (o*lanes+l)*4)
					if add {
						*p += v
					} else {
						*p = v
					}
				}
			}
		}
	}
}

// checkPoolPlan panics unless p is a plan of d.
func (d *DirectConv) checkPoolPlan(name string, p *DirectPool) {
	if p == nil || p.d != d {
		panic(fmt.Sprintf("kernel: DirectConv.%s: a pooling of another plan", name))
	}
}

// directPoolStream makes NewPool's forward pass store the convolution's
// output by non-temporal stores; a variable for benchmarks.
var directPoolStream = true
