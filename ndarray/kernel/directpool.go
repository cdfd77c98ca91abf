package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// Max pooling on the direct convolution's interleaved blocks.
//
// A convolution followed by a max pooling of its output can pool each
// band of interleaved output rows right after the tile kernels wrote it,
// while it is in the L1 cache: a vector holds one pixel of one channel of
// every image of the block, so a window's maximum is a few vector
// compares, where the pooling of the stored output reads each image's
// planes back. The pooling's argmax mask stays interleaved, one per image
// block, for the backward pass, which routes the pooling's gradient
// through it straight into the interleaved output gradient the weight
// gradient reads: where the weights take one chunk of the weight
// gradient's calls, a band of output rows at a time, right before the
// calls that read it, while it is in the L1 cache (unpoolBand; the bias
// sums then go through planeSums' buckets, band by band, for the same
// bits). Both passes still write the convolution's output
// gradient in Caffe's layout, and the forward pass its output unless the
// caller, which needs only the pooled values, passes none.
//
// The results are those of the pooling of the stored output: the bias is
// added before the compare, the first maximal element of a window in
// row-major order wins, values not greater than −MaxFloat32 are never
// chosen (an output whose window holds only such values is −MaxFloat32
// with index −1), and each routed gradient is 0 plus the pooling's
// gradient, as Caffe's backward pass adds it to a cleared input.

// DirectPool is a max pooling of a DirectConv's output: windows of kh×kw
// pixels, stride sh×sw, no padding, every window inside the output, no
// two windows overlapping, and as many windows as Caffe's pooling has
// (every output row and column before the last window's start).
type DirectPool struct {
	d              *DirectConv
	kh, kw, sh, sw int
	ph, pw         int // pooled height and width
	band           int // output rows of a forward band, a multiple of sh
	exact          bool
	maskSize       int // int32s of one block's interleaved mask
	poolSize       int // floats of one pooled image
	// NewPool's plans (directpool2.go): average or max, the rectifier
	// before the pooling, the windows whose columns lie inside the
	// output, and the int32s of the argmax indexes at the front of the
	// mask (the rectifier's bits follow, one int32 per pixel and channel).
	general, ave, relu bool
	slope              float32
	inner, idxSize     int
	negZero            []float32 // −0 per output channel, a bias that changes nothing
}

// NewMaxPool plans the max pooling of d's output into ph×pw outputs with
// kh×kw windows and stride sh×sw, no padding. It returns nil where the
// interleaved pooling does not apply: the kernels lack it, windows
// overlap or reach past the output, or a band of output rows cannot hold
// a row of windows.
func (d *DirectConv) NewMaxPool(kh, kw, sh, sw, ph, pw int) *DirectPool {
	if d.k.maxPool == nil || kh < 1 || kw < 1 || kh > sh || kw > sw || ph < 1 || pw < 1 ||
		(ph-1)*sh+kh > d.oh || (pw-1)*sw+kw > d.ow || ph*sh < d.oh || pw*sw < d.ow {
		return nil
	}
	band := d.bandRows(d.ow, d.ms) / sh * sh
	if band < sh {
		return nil
	}
	return &DirectPool{
		d: d, kh: kh, kw: kw, sh: sh, sw: sw, ph: ph, pw: pw, band: band,
		exact:    kh == sh && kw == sw && ph*sh == d.oh && pw*sw == d.ow,
		maskSize: ph * pw * d.mAll * d.lanes,
		poolSize: d.mAll * ph * pw,
	}
}

// MaskSize returns the int32s of one image block's interleaved mask.
func (p *DirectPool) MaskSize() int { return p.maskSize }

// ForwardPool is Forward followed by the max pooling of its output: it
// convolves n images x into y as Forward does and pools y into py (n
// pooled images, NCHW), keeping the block's argmax indexes (into each
// output plane) interleaved in mask (MaskSize int32s) for BackwardPooled
// and Mask. A nil y leaves the output unstored: only py and mask are
// written. It is LoadInput followed by ForwardPoolPieces of all the
// plan's pieces.
func (d *DirectConv) ForwardPool(s *DirectScratch, b *DirectBlocks, slot int, x []float32, n int, y []float32, bias []float32, p *DirectPool, py []float32, mask []int32) {
	d.checkForwardPool("ForwardPool", s, b, slot, n, y, bias, p, py, mask)
	d.LoadInput(b, slot, x, n)
	d.forwardPoolPieces(s, b.x[slot*d.xSize:], n, y, bias, p, py, mask, 0, p.Pieces())
}

// checkForwardPool panics unless ForwardPool's or ForwardPoolPieces'
// arguments fit d and p.
func (d *DirectConv) checkForwardPool(name string, s *DirectScratch, b *DirectBlocks, slot, n int, y, bias []float32, p *DirectPool, py []float32, mask []int32) {
	d.checkPoolPlan(name, p)
	d.check(name, s, b, slot, n, len(py), n*p.poolSize, len(mask), p.maskSize)
	if y != nil {
		d.check(name, nil, nil, 0, n, len(y), n*d.outSize)
	}
	if bias != nil && len(bias) < d.mAll {
		panic(fmt.Sprintf("kernel: DirectConv.%s: len(bias) = %d, want >= %d", name, len(bias), d.mAll))
	}
}

// Pieces returns the pieces that ForwardPoolPieces cuts a block's
// ForwardPool into: for a plan of NewMaxPool's, a tile of output
// channels over a band of output rows each, the bands one after the
// other, BandPieces each; for NewPool's general plans, whose windows
// read the rows of the band before, one.
func (p *DirectPool) Pieces() int {
	if p.general || p.d.wino {
		return 1
	}
	return (p.d.oh + p.band - 1) / p.band * p.BandPieces()
}

// BandPieces returns the pieces of a band of output rows (Pieces): the
// pieces of a band that ForwardPoolPieces computes together run faster
// than one by one.
func (p *DirectPool) BandPieces() int {
	if p.general || p.d.wino {
		return 1
	}
	return p.d.groups * len(p.d.fTiles)
}

// ForwardPoolPieces computes pieces [lo, hi) of p.Pieces() of
// ForwardPool's work on the n images that LoadInput interleaved into
// slot of b: the same values into y, py and mask as ForwardPool.
// Distinct pieces of a block write distinct values, so goroutines may
// compute them at once, each with its own scratch, once the block is
// loaded.
func (d *DirectConv) ForwardPoolPieces(s *DirectScratch, b *DirectBlocks, slot int, n int, y []float32, bias []float32, p *DirectPool, py []float32, mask []int32, lo, hi int) {
	d.checkForwardPool("ForwardPoolPieces", s, b, slot, n, y, bias, p, py, mask)
	if lo < 0 || hi > p.Pieces() || lo > hi {
		panic(fmt.Sprintf("kernel: DirectConv.ForwardPoolPieces: pieces [%d, %d) of %d", lo, hi, p.Pieces()))
	}
	d.forwardPoolPieces(s, b.x[slot*d.xSize:], n, y, bias, p, py, mask, lo, hi)
}

// forwardPoolPieces is ForwardPoolPieces on the input interleaved in xs:
// a general plan's whole block, else the pieces one by one, but the
// whole bands among them a band at a time.
func (d *DirectConv) forwardPoolPieces(s *DirectScratch, xs []float32, n int, y, bias []float32, p *DirectPool, py []float32, mask []int32, lo, hi int) {
	if p.general {
		if lo < hi {
			d.forwardPoolGeneral(s, xs, n, y, bias, p, py, mask)
		}
		return
	}
	if d.wino {
		// Winograd's transforms: the whole block at once (Pieces).
		if need := d.oh / p.sh * p.pw * d.ms * d.lanes; len(s.pool) < need {
			s.pool = make([]float32, need)
		}
		if lo < hi {
			d.winoInterleaved(s, xs, s.y)
			d.poolChannels(s, n, y, bias, p, py, mask, 0, d.mAll, 0, d.oh)
		}
		return
	}
	if need := p.band / p.sh * p.pw * d.ms * d.lanes; len(s.pool) < need {
		s.pool = make([]float32, need)
	}
	per := p.BandPieces()
	for i := lo; i < hi; {
		y0 := i / per * p.band
		y1 := min(d.oh, y0+p.band)
		if i%per == 0 && i+per <= hi {
			d.convolveBand(s, xs, y0, y1)
			d.poolChannels(s, n, y, bias, p, py, mask, 0, d.mAll, y0, y1)
			i += per
			continue
		}
		g, t := i%per/len(d.fTiles), d.fTiles[i%len(d.fTiles)]
		d.convolveTileTo(s.y, xs, g, t, y0, y1)
		d.poolChannels(s, n, y, bias, p, py, mask, g*d.m+t.r0, g*d.m+t.r0+t.h, y0, y1)
		i++
	}
}

// poolChannels stores channels [c0, c1) of output rows [y0, y1), which
// s.y holds interleaved, into y (unless nil), max-pools them and stores
// the pooled values into py, channel by channel.
func (d *DirectConv) poolChannels(s *DirectScratch, n int, y, bias []float32, p *DirectPool, py []float32, mask []int32, c0, c1, y0, y1 int) {
	L, f := d.lanes, 4
	// Nothing reads the output again soon: the pooling's input is the
	// interleaved band.
	if y != nil {
		d.storeChannels(s.y, c0, c1, d.mAll, d.ms, y0, y1, d.oh, d.ow, y, n, bias, true)
	}
	negZero := float32(math.Copysign(0, -1)) // x + −0 is x for every x
	// The rows of windows that start in the band lie inside it.
	r0, r1 := y0/p.sh, min(p.ph, (y1+p.sh-1)/p.sh)
	for c := c0; c < c1; c++ {
		var bc float32
		if bias != nil {
			bc = bias[c]
		}
		for r := r0; r < r1; r++ {
			d.k.maxPool(&s.pool[((r-r0)*p.pw*d.ms+c)*L], d.ms*L*f, &mask[(r*p.pw*d.mAll+c)*L], d.mAll*L*f,
				&s.y[((r*p.sh-y0)*d.ow*d.ms+c)*L], d.ms*L*f, d.ow*d.ms*L*f, p.pw, p.kh, p.kw, p.sw,
				int32(r*p.sh*d.ow), int32(d.ow), bc)
		}
		d.k.deinterleave(&py[(c*p.ph+r0)*p.pw], p.poolSize*f, &s.pool[c*L], d.ms*L*f, (r1-r0)*p.pw, n, negZero)
	}
}

// Mask writes the argmax indexes of n images that ForwardPool kept
// interleaved in mask into dst (n pooled images, NCHW), as the pooling of
// the stored output records them.
func (p *DirectPool) Mask(dst []int32, mask []int32, n int) {
	d := p.d
	if p.ave {
		panic("kernel: DirectPool.Mask: an average pooling has no mask")
	}
	d.check("Mask", nil, nil, 0, n, len(dst), n*p.poolSize, len(mask), p.maskSize)
	L := d.lanes
	for i := range n {
		for c := range d.mAll {
			for r := range p.ph * p.pw {
				dst[i*p.poolSize+c*p.ph*p.pw+r] = mask[(r*d.mAll+c)*L+i]
			}
		}
	}
}

// LoadGradPooled is the max pooling's backward pass and LoadGrad in one:
// it routes the pooling's gradient pdy (n pooled images, NCHW) through the
// block's mask (ForwardPool) into s, interleaved and padded for
// BackwardData and WeightGrad, and writes it to dy (n images, NCHW), the
// pooling's input gradient, unless dy is nil (a plan of NewMaxPool only:
// a caller that needs no more of it than its sums, which
// WeightGradPooledBias adds up from its own layout).
func (d *DirectConv) LoadGradPooled(s *DirectScratch, p *DirectPool, pdy []float32, mask []int32, n int, dy []float32) {
	d.checkPoolPlan("LoadGradPooled", p)
	d.check("LoadGradPooled", s, nil, 0, n, len(pdy), n*p.poolSize, len(mask), p.maskSize)
	if dy != nil || p.general {
		d.check("LoadGradPooled", nil, nil, 0, n, len(dy), n*d.outSize)
	}
	if p.general {
		d.loadGradGeneral(s, p, pdy, mask, n, dy, nil)
		return
	}
	L := d.lanes
	p0, p1 := d.kh-1-d.padH, d.kw-1-d.padW
	d.unpoolRows(s, p, pdy, mask, n, 0, p.ph, d.oh, s.dy[(p0*d.dw+p1)*d.ms*L:], d.dw*d.ms*L)
	if dy != nil {
		for c := range d.mAll {
			for y := range d.oh {
				d.k.deinterleave(&dy[(c*d.oh+y)*d.ow], d.outSize*4, &s.dy[(((y+p0)*d.dw+p1)*d.ms+c)*L], d.ms*L*4, d.ow, n, 0)
			}
		}
	}
	s.n, s.tiled = n, false
}

// LoadGradPooledBias is LoadGradPooled for a plan of NewPool that writes
// no output gradient in Caffe's layout: instead it adds to db[r], for
// each output channel r and each image j < n in order, the sum of image
// j's gradient plane r as Sum adds that plane (what SumRows over the
// gradient LoadGradPooled would write adds, image by image: a
// convolution's bias gradient, without the pass that writes the
// gradient out and the one that reads it back).
func (d *DirectConv) LoadGradPooledBias(s *DirectScratch, p *DirectPool, pdy []float32, mask []int32, n int, db []float32) {
	d.checkPoolPlan("LoadGradPooledBias", p)
	if !p.general {
		panic("kernel: DirectConv.LoadGradPooledBias: a plan of NewMaxPool (use WeightGradPooledBias)")
	}
	d.check("LoadGradPooledBias", s, nil, 0, n, len(pdy), n*p.poolSize, len(mask), p.maskSize, len(db), d.mAll)
	d.loadGradGeneral(s, p, pdy, mask, n, nil, db)
}

// WeightGradPooled is WeightGrad for the gradient of a max pooling of
// the output: the pooling's gradient pdy (n pooled images, NCHW) is
// routed through the block's mask (ForwardPool) straight into the weight
// gradient's layout of the output gradient, and written to dy (n images,
// NCHW) as the pooling's backward pass would, unless dy is nil (the
// caller wrote it by LoadGradPooled).
func (d *DirectConv) WeightGradPooled(s *DirectScratch, x []float32, p *DirectPool, pdy []float32, mask []int32, n int, dy, dw []float32) {
	d.checkPoolPlan("WeightGradPooled", p)
	if p.general {
		panic("kernel: DirectConv.WeightGradPooled: a plan of NewPool (use LoadGradPooled and WeightGradLoaded)")
	}
	d.check("WeightGradPooled", s, nil, 0, n, len(x), n*d.imgSize, len(pdy), n*p.poolSize, len(mask), p.maskSize, len(dw), d.mAll*d.kk)
	if dy != nil {
		d.check("WeightGradPooled", nil, nil, 0, n, len(dy), n*d.outSize)
	}
	d.weightGrad(s, x, dy, n, dw, p, pdy, mask, nil)
}

// WeightGradPooledBias is WeightGradPooled without the output gradient
// in Caffe's layout: instead of writing it, it adds to db[r], for each
// output channel r and each image j < n in order, the sum of image j's
// gradient plane r as Sum adds that plane, which is what SumRows over the
// written gradient, image by image, adds (a convolution's bias gradient:
// the same bits, without the pass that writes the gradient out and the
// pass that reads it back). With db nil it adds nothing: the weight
// gradient alone.
func (d *DirectConv) WeightGradPooledBias(s *DirectScratch, x []float32, p *DirectPool, pdy []float32, mask []int32, n int, db, dw []float32) {
	d.checkPoolPlan("WeightGradPooledBias", p)
	if p.general {
		panic("kernel: DirectConv.WeightGradPooledBias: a plan of NewPool (use LoadGradPooled and WeightGradLoaded)")
	}
	d.check("WeightGradPooledBias", s, nil, 0, n, len(x), n*d.imgSize, len(pdy), n*p.poolSize, len(mask), p.maskSize, len(dw), d.mAll*d.kk)
	if db != nil && len(db) < d.mAll {
		panic(fmt.Sprintf("kernel: DirectConv.WeightGradPooledBias: len(db) = %d, want >= %d", len(db), d.mAll))
	}
	d.weightGrad(s, x, nil, n, dw, p, pdy, mask, db)
}

// unpoolTiles routes the pooling's gradient of group g's output channels
// into the weight gradient's layout of the output gradient (s.dyp, tile
// by tile) and writes it to dy unless dy is nil, and adds its planes' sums
// to db unless db is nil (WeightGradPooledBias).
func (d *DirectConv) unpoolTiles(s *DirectScratch, p *DirectPool, g int, pdy []float32, mask []int32, n int, dy, db []float32) {
	L, f := d.lanes, 4
	P, PP := d.oh*d.ow, p.ph*p.pw
	if need := PP * L; len(s.pool) < need {
		s.pool = make([]float32, max(need, p.band/p.sh*p.pw*d.ms*L))
	}
	for _, t := range d.gTiles {
		if !p.exact {
			clear(s.dyp[t.r0*P*L : (t.r0+t.h)*P*L])
		}
		step := t.h * L * f
		for i := range t.h {
			m := g*d.m + t.r0 + i
			d.k.interleave(&s.pool[0], L*f, &pdy[m*PP], p.poolSize*f, PP, n)
			dst := s.dyp[(t.r0*P+i)*L:]
			for r := range p.ph {
				d.k.unpool(&dst[r*p.sh*d.ow*t.h*L], step, d.ow*step, &s.pool[r*p.pw*L], L*f,
					&mask[(r*p.pw*d.mAll+m)*L], d.mAll*L*f, p.pw, p.kh, p.kw, p.sw, int32(r*p.sh*d.ow), int32(d.ow))
			}
			if dy != nil {
				d.k.deinterleave(&dy[m*P], d.outSize*f, &dst[0], step, P, n, 0)
			}
			if db != nil {
				d.k.planeSums(&s.sums[0], &dst[0], step, P)
				for j := range n {
					db[m] += s.sums[j]
				}
			}
		}
	}
}

// poolBands reports whether weightGrad routes p's gradient band by band
// (unpoolBand), right before the calls that read each band, where
// unpoolTiles routes all of it first: a plan of NewMaxPool's whose
// weights take one chunk, so that each band is read once, and whose
// planes are whole vectors of planeSums' additions, so that the bias
// sums can be added up in its buckets.
func (d *DirectConv) poolBands(p *DirectPool) bool {
	return !p.general && d.kp <= d.gChunk && d.oh*d.ow%d.k.sumWidth == 0
}

// unpoolBand routes the gradient of output rows [r0, r0+nr) of tile t
// of group g's output channels into s.band in the weight gradient's
// layout of the tile (unpoolTiles' layout of those rows), writes it to
// dy unless dy is nil, and, with sums, adds it to the planeSums buckets
// of the tile's channels, whose first is channel first of the group of
// tiles. r0 is a multiple of p.sh.
func (d *DirectConv) unpoolBand(s *DirectScratch, p *DirectPool, g int, t dtile, first, r0, nr int, pdy []float32, mask []int32, n int, dy []float32, sums bool) {
	L, f := d.lanes, 4
	P, PP := d.oh*d.ow, p.ph*p.pw
	if need := PP * L; len(s.pool) < need {
		s.pool = make([]float32, max(need, p.band/p.sh*p.pw*d.ms*L))
	}
	band, step := s.band[:nr*d.ow*t.h*L], t.h*L*f
	if !p.exact {
		clear(band)
	}
	pr0, pr1 := r0/p.sh, min(p.ph, (r0+nr+p.sh-1)/p.sh)
	B, W := d.k.sumBuckets, d.k.sumWidth
	whole := P / B * B // the pixels of whole groups of buckets
	p0, p1 := r0*d.ow, (r0+nr)*d.ow
	for i := range t.h {
		m := g*d.m + t.r0 + i
		if pr0 < pr1 {
			d.k.interleave(&s.pool[0], L*f, &pdy[m*PP+pr0*p.pw], p.poolSize*f, (pr1-pr0)*p.pw, n)
		}
		for r := pr0; r < pr1; r++ {
			d.k.unpool(&band[((r-pr0)*p.sh*d.ow*t.h+i)*L], step, d.ow*step, &s.pool[(r-pr0)*p.pw*L], L*f,
				&mask[(r*p.pw*d.mAll+m)*L], d.mAll*L*f, p.pw, p.kh, p.kw, p.sw, int32(r*p.sh*d.ow), int32(d.ow))
		}
		if dy != nil {
			d.k.deinterleave(&dy[m*P+p0], d.outSize*f, &band[i*L], step, p1-p0, n, 0)
		}
		if !sums {
			continue
		}
		// Each pixel's vector into its bucket, runs of consecutive
		// buckets at a time.
		buckets := s.buckets[(first+i)*B*L:]
		for q := p0; q < p1; {
			b, run := q%B, 0
			if q < whole {
				run = min(p1, whole, q-b+B) - q
			} else {
				b = q % W
				run = min(p1, q-b+W) - q
			}
			d.k.planeSumsAdd(&buckets[b*L], &band[((q-p0)*t.h+i)*L], step, run)
			q += run
		}
	}
}

// bucketSums adds to db[m], for each output channel m of the group of
// tiles (of group g) and each image j < n in order, the sum of image j's
// gradient plane m from the planeSums buckets unpoolBand filled: what
// planeSums over the whole plane gives, bit for bit.
func (d *DirectConv) bucketSums(s *DirectScratch, g int, group []dtile, n int, db []float32) {
	L, B := d.lanes, d.k.sumBuckets
	first := group[0].r0
	for _, t := range group {
		for i := range t.h {
			d.k.planeSums(&s.sums[0], &s.buckets[(t.r0-first+i)*B*L], L*4, B)
			for j := range n {
				db[g*d.m+t.r0+i] += s.sums[j]
			}
		}
	}
}

// unpoolRows routes the gradient of pooled rows [r0, r1) into the
// interleaved gradient band at dst (output row r0·sh first, rows rowLen
// floats apart), clearing the band's rows output rows first unless the
// windows tile them.
func (d *DirectConv) unpoolRows(s *DirectScratch, p *DirectPool, pdy []float32, mask []int32, n, r0, r1, rows int, dst []float32, rowLen int) {
	L, f := d.lanes, 4
	if need := (r1 - r0) * p.pw * L; len(s.pool) < need {
		s.pool = make([]float32, max(need, p.band/p.sh*p.pw*d.ms*L))
	}
	if !p.exact {
		for y := range rows {
			clear(dst[y*rowLen : y*rowLen+d.ow*d.ms*L])
		}
	}
	for c := range d.mAll {
		d.k.interleave(&s.pool[0], L*f, &pdy[(c*p.ph+r0)*p.pw], p.poolSize*f, (r1-r0)*p.pw, n)
		for r := r0; r < r1; r++ {
			d.k.unpool(&dst[((r-r0)*p.sh*rowLen)+c*L], d.ms*L*f, rowLen*f, &s.pool[(r-r0)*p.pw*L], L*f,
				&mask[(r*p.pw*d.mAll+c)*L], d.mAll*L*f, p.pw, p.kh, p.kw, p.sw, int32(r*p.sh*d.ow), int32(d.ow))
		}
	}
}

func goDirectPoolMax(lanes int) func(dst *float32, dstStep int, arg *int32, argStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, base, ld int32, bias float32) {
	return func(dst *float32, dstStep int, arg *int32, argStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, base, ld int32, bias float32) {
		for o := range n {
			for l := range lanes {
				best, idx := float32(-math.MaxFloat32), int32(-1)
				for i := range kh {
					for j := range kw {
						v := *at(src, (o*sw+j)*pixStep+i*rowStep+4*l) + bias
						if v > best {
							best, idx = v, base+int32(o*sw+j)+int32(i)*ld
						}
					}
				}
				*at(dst, o*dstStep+4*l) = best
				*(*int32)(unsafe.Add(unsafe.Pointer(arg), o*argStep+4*l)) = idx
			}
		}
	}
}

func goDirectUnpool(lanes int) func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32) {
	return func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32) {
		for o := range n {
			for l := range lanes {
				var zero float32
				g := zero + *at(grad, o*gradStep+4*l)
				m := *(*int32)(unsafe.Add(unsafe.Pointer(arg), o*argStep+4*l))
				for i := range kh {
					for j := range kw {
						var v float32
						if m == base+int32(o*sw+j)+int32(i)*ld {
							v = g
						}
						*at(dst, (o*sw+j)*pixStep+i*rowStep+4*l) = v
					}
				}
			}
		}
	}
}
