package kernel

import (
	"fmt"
	"unsafe"
)

// Row convolution: one image at a time, in its own layout.
//
// A RowConv computes the forward pass of a 2-D convolution (any stride, no
// dilation, one group) on one image (NCHW) at a time, the output pixels of
// a row in the lanes of a vector: a tile of up to MR output channels of
// two output rows, two vectors of each, stays in registers while each
// weight is broadcast and multiplied into the four input vectors it
// meets, read from a copy of the image through a table of offsets. It is
// meant for convolutions with few input channels (a net's first:
// CIFAR-10 quick's 3 channels into 32 outputs of 32×32 pixels, AlexNet's
// 11×11 with stride 4), whose outputs are many for their work: it writes
// them in place, where the direct convolution's interleaved blocks would
// transpose them, and needs no column matrix.
//
// The copy is zero-padded and split into stride phases: input column x
// of a row lies in phase x mod strideW at x div strideW, so the columns
// that neighbouring output pixels read with one weight lie side by side
// whatever the stride. Output rows are computed as whole pairs of vectors
// and in pairs, or rows of four vectors one at a time; where the output's
// width or height is not a multiple, the last vectors and rows go to a
// band buffer first and only the output's pixels are copied out, except
// for single rows of at most four vectors, whose last pair of vectors is
// moved back to end with the row.
//
// Each output value is the sum of the same products in the same order as
// on the column path (im2col and the blocked product): Caffe's order
// (channel, kernel row, kernel column, the padding's zeros included), in
// the runs of weights the product cuts the inner dimension into
// (gemmImpl.kc), each run's sum added to the last's, and the bias added
// last, so the two give the same bits.
type RowConv struct {
	k          *rowKernels
	c, h, w, m int
	kh, kw     int
	padH, padW int
	sh, sw     int
	oh, ow     int
	owp        int  // ow rounded up to two vectors (four for single rows)
	rows       int  // output rows per kernel call: 2 (two vectors each) or 1 (four)
	pairStep   int  // single rows: floats from a call's first pair of vectors to its second
	phr        int  // rows of the padded copy (zero rows below for a last odd row)
	qw         int  // floats of one phase of a padded row
	inPlace    bool // every output row pair is stored in place
	kk         int
	kcut       []int
	off        []int32
	tiles      []dtile
	wp         []float32
	xSize      int // floats of the padded copy
	// The weight gradient: weights rounded up to whole tiles (offsets
	// repeating the last), vectors per output row, the output gradient
	// read in place or copied into rows of whole vectors, output rows per
	// band, the tiles of output channels.
	kp, nvec int
	gradCopy bool
	gRows    int
	gTiles   []dtile
	accSize  int
	dypSize  int
	// The weight gradient on flat rows (rowconv_flat.go), for images
	// too large for the row layout's: its plan, the flat copy's floats
	// (after the padded copy), the weights' offsets in it and their
	// places in Caffe's order, and its column phases.
	flat             bool
	flatQ, flatR     int
	flatRows, flatMp int
	fxSize           int
	flatOff          []int32
	flatPerm         []int
	flatCols         []flatCol
	// The forward pass on flat rows: the weights' offsets in Caffe's
	// order.
	flatFwd    bool
	flatFwdOff []int32
	// The bias gradient in the weights' padding: where they are not a
	// whole number of tiles, weight slot kk reads a region of ones (after
	// the copies, onesSize floats) and sums the output gradient.
	biasSlot bool
	onesSize int
}

// rowKernels is one implementation's row-convolution kernels.
type rowKernels struct {
	lanes int // floats per vector
	mr    int // largest tile (output channels)
	// conv computes, for npair pairs of vectors g along the rows, for
	// i < mr, r < 2, v < 2:
	// y[i·ych + r·yrow + (2g+v)·V] = Σ_kk a[kk·mr+i] · x[off[kk] + r·xrow + (2g+v)·V] (+ y) (+ bias[i]),
	// with byte offsets and strides, V the vector's bytes, the sum over
	// kk < k in order from zero, y's value added if load and bias (unless
	// nil) added last.
	conv     func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool)
	gmr, gnr int // tile of the weight gradient: output channels × weights
	// grad adds to acc[i][j] (acc + i·accRow + j·V), for i < mr, j < gnr,
	// the sum over rows r < nrows and vectors v < nvec of
	// dy[i·dych + r·dyrow + v·V] · x[offs[j] + r·xrow + v·V], byte strides,
	// in order; dyskip and xskip are dyrow and xrow less nvec·V.
	grad func(mr int, dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int)
	// deint sets dk[t] = src[4t+k] for k < 4, t < n (the flat copy's
	// split of a row into its stride-4 phases); nil where the portable
	// loop does it.
	deint func(d0, d1, d2, d3, src *float32, n int)
	// gradT adds to acc[j][i] (acc + j·accRow + i·V), for j < gnr,
	// i < mr vectors of output channels, the sum over rows r < nrows and
	// pixels t < npix of x[offs[j] + r·xrow + 4t] · dy[(r·npix+t)·dyStep
	// + i·V], byte strides, in order; xrow is 4·npix + xskip. The flat
	// weight gradient (rowconv_flat.go) runs on it, gtm vectors of
	// channels at most a call, on output gradient transposed by trans
	// (the direct convolution's interleave).
	gradT func(mr int, dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int)
	gtm   int
	trans func(dst *float32, dstStep int, src *float32, srcStride, w, n int)
	// prefetch asks for the lines of rows runs of n bytes from p, stride
	// bytes apart, in the second-level cache (the flat weight gradient's
	// next band); nil where the kernels have none.
	prefetch func(p *float32, stride, rows, n int)
	// flat computes, for i < mr (at most fmr) output channels and
	// v < fnv vectors of flat pixels:
	// y[i·ych + v·V] = Σ_kk a[kk·mr+i] · x[off[kk] + v·V] (+ y) (+ bias[i]),
	// byte offsets and strides, the sum over kk < k in order from zero,
	// y's value added if load and bias (unless nil) added last: the
	// forward pass on flat rows (rowconv_flat.go).
	flat     func(mr, k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool)
	fmr, fnv int
}

// NewRowConv plans the row convolution of images of channels × height ×
// width into outputs channels with a kh×kw kernel, padding padH×padW and
// stride strideH×strideW (no dilation, one group). It returns nil if the
// kernels in use have none, the output is empty, or its rows would waste
// more than a fifth of the vectors' lanes.
func NewRowConv(channels, height, width, outputs, kh, kw, padH, padW, strideH, strideW int) *RowConv {
	return newRowConv(rowKernelsOf(active), channels, height, width, outputs, kh, kw, padH, padW, strideH, strideW)
}

func newRowConv(k *rowKernels, channels, height, width, outputs, kh, kw, padH, padW, strideH, strideW int) *RowConv {
	if k == nil || channels <= 0 || height <= 0 || width <= 0 || outputs <= 0 || kh <= 0 || kw <= 0 || padH < 0 || padW < 0 ||
		strideH <= 0 || strideW <= 0 {
		return nil
	}
	d := &RowConv{
		k: k, c: channels, h: height, w: width, m: outputs, kh: kh, kw: kw, padH: padH, padW: padW, sh: strideH, sw: strideW,
		oh: ConvOutSize(height, kh, padH, strideH, 1), ow: ConvOutSize(width, kw, padW, strideW, 1),
		kk: channels * kh * kw,
	}
	if d.oh <= 0 || d.ow <= 0 {
		return nil
	}
	v2, v4 := 2*k.lanes, 4*k.lanes
	d.owp = (d.ow + v2 - 1) / v2 * v2
	if 4*d.owp > 5*d.ow {
		return nil
	}
	d.rows = 2
	if d.ow > v2 && (d.ow+v4-1)/v4*v4 == d.owp {
		// Rows of four vectors or more: one row at a time reads fewer
		// input rows per call, and computes no row below the output.
		d.rows = 1
	}
	d.inPlace = d.owp == d.ow && d.oh%d.rows == 0
	d.pairStep = v2
	if d.rows == 1 && d.ow <= v4 {
		// One call per row, its second pair of vectors ending at the
		// row's end (AlexNet's 55: vectors at 0, 16, 23 and 39), so the
		// outputs go in place; those of both pairs are computed twice by
		// the same sums, and a call reads all its outputs before it
		// writes any.
		d.inPlace, d.pairStep = true, d.ow-v2
	}
	ohp := (d.oh + d.rows - 1) / d.rows * d.rows
	d.phr = max(height+2*padH, (ohp-1)*strideH+kh)
	d.qw = max((width+2*padW+strideW-1)/strideW, d.owp+(kw-1)/strideW)
	d.xSize = channels * d.phr * strideW * d.qw
	kc := split(d.kk, active.kc, 1)
	for k0 := 0; k0 < d.kk; k0 += kc {
		d.kcut = append(d.kcut, k0)
	}
	d.kcut = append(d.kcut, d.kk)
	for c := range channels {
		for ki := range kh {
			for kj := range kw {
				d.off = append(d.off, int32((((c*d.phr+ki)*strideW+kj%strideW)*d.qw+kj/strideW)*4))
			}
		}
	}
	d.tiles = tiles(outputs, k.mr)
	d.wp = make([]float32, outputs*d.kk)
	L, V := k.lanes, 4*k.lanes
	d.kp = (d.kk + k.gnr - 1) / k.gnr * k.gnr
	for len(d.off) < d.kp {
		d.off = append(d.off, d.off[len(d.off)-1])
	}
	d.nvec = (d.ow + L - 1) / L
	d.gradCopy = d.ow%L != 0
	d.gRows = max(1, min(d.oh, rowGradBand/(k.gmr*d.nvec*V)))
	d.gTiles = tiles(outputs, k.gmr)
	d.accSize = outputs * d.kp * L
	if d.gradCopy {
		d.dypSize = outputs * d.oh * d.nvec * L
	}
	if 4*d.xSize > rowGradMaxInput {
		d.planFlat()
		d.planFlatForward()
	}
	if d.biasSlot = d.kp > d.kk; d.biasSlot {
		// The region of ones after the copies, read from the band's first
		// row of the copy the gradient reads (flat rows or the padded
		// copy) as far as the last row's vectors.
		if d.flat {
			d.onesSize = d.oh*d.flatQ + L
			d.flatOff[d.kk] = int32(4 * d.fxSize)
		} else {
			d.onesSize = d.oh * d.sh * d.sw * d.qw
			d.off[d.kk] = int32(4 * (d.xSize + d.fxSize))
		}
	}
	return d
}

// rowGradBand is about how many bytes of output gradient a weight-gradient
// call reads for its tile of output channels, so that they stay in the L1
// cache while every tile of weights reads them.
const rowGradBand = 24 << 10

// GradFits reports whether the weight gradient (GradAdd) suits the
// geometry: the padded copy of an image stays in the L1 cache while every
// tile of output channels reads it (CIFAR-10 quick's first layer, 16 KB),
// or a larger one (AlexNet's, 720 KB) has flat rows that waste at most a
// fifth of the lanes (see rowconv_flat.go).
func (d *RowConv) GradFits() bool { return 4*d.xSize <= rowGradMaxInput || d.flat }

// rowGradMaxInput is the most bytes of the padded copy for the row
// layout's weight gradient; larger images take flat rows.
const rowGradMaxInput = 32 << 10

// ScratchSize returns the floats of the buffer Forward works in.
func (d *RowConv) ScratchSize() int {
	band := 0
	if !d.inPlace {
		band = d.m * d.rows * d.owp
	}
	if d.flatFwd {
		band = d.k.fmr * d.k.fnv * d.k.lanes
	}
	return d.fixed() + max(band, d.accSize+d.dypSize+d.flatScratch())
}

// fixed is the floats at the start of the scratch that keep their values
// between calls: the copies of the image and the ones.
func (d *RowConv) fixed() int { return d.xSize + d.fxSize + d.onesSize }

// Pack packs the weights, Caffe's [outputs][channels][kh][kw], for
// Forward.
func (d *RowConv) Pack(w []float32) {
	if need := d.m * d.kk; len(w) < need {
		panic(fmt.Sprintf("kernel: RowConv.Pack: len(w) = %d, want >= %d", len(w), need))
	}
	// Tile t holds [k][i] = W[r0+i][k].
	for _, t := range d.tiles {
		dst := d.wp[t.r0*d.kk : (t.r0+t.h)*d.kk]
		for i := range t.h {
			for k, v := range w[(t.r0+i)*d.kk : (t.r0+i+1)*d.kk] {
				dst[k*t.h+i] = v
			}
		}
	}
}

// Forward convolves the image x (channels×height×width) into y
// (outputs×outH×outW), adding bias (per output channel) if not nil, with
// the weights packed by Pack. scratch (ScratchSize floats) holds the
// padded copy of the image: it must be zero when first used (as made),
// Forward writes only the places of the image's values.
func (d *RowConv) Forward(scratch, x, y, bias []float32) {
	d.forward(scratch, x, y, bias, false, 0)
}

// ForwardReLU is Forward followed by a rectifier of the output (as Relu
// with slope): on flat rows (AlexNet's first layer) in the band each
// group of outputs passes through on its way out, while it is in the L1
// cache, else over the image's output once it is written. The values are
// those of Forward and Relu, bit for bit.
func (d *RowConv) ForwardReLU(scratch, x, y, bias []float32, slope float32) {
	d.forward(scratch, x, y, bias, true, slope)
}

func (d *RowConv) forward(scratch, x, y, bias []float32, relu bool, slope float32) {
	switch {
	case len(scratch) < d.ScratchSize():
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(scratch) = %d, want >= %d", len(scratch), d.ScratchSize()))
	case len(x) < d.c*d.h*d.w:
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(x) = %d, want >= %d", len(x), d.c*d.h*d.w))
	case len(y) < d.m*d.oh*d.ow:
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(y) = %d, want >= %d", len(y), d.m*d.oh*d.ow))
	case bias != nil && len(bias) < d.m:
		panic(fmt.Sprintf("kernel: RowConv.Forward: len(bias) = %d, want >= %d", len(bias), d.m))
	}
	if d.flatFwd {
		d.forwardFlat(scratch[d.xSize:][:d.fxSize], scratch[d.fixed():], x, y, bias, relu, slope)
		return
	}

	xs := scratch[:d.xSize]
	d.load(xs, x)
	const f = 4
	L, P := d.k.lanes, d.oh*d.ow
	band := scratch[d.fixed():]
	xrow := d.sh * d.sw * d.qw // floats from an output row's input to the next's
	// A call computes rows output rows of groups vectors each (two or
	// four), groups of them one after the other along the row.
	pitch, groups, calls, rowStep := d.owp, d.owp/(2*L), 1, xrow
	if d.rows == 1 {
		// Four vectors of one row: the kernel's second row is the
		// third and fourth vector.
		groups, calls, rowStep = 1, d.owp/(4*L), d.pairStep
	}
	for oy := 0; oy < d.oh; oy += d.rows {
		// Run by run of weights, so that the input rows a run reads stay
		// in the L1 cache while every tile reads them.
		for r := 0; r+1 < len(d.kcut); r++ {
			k0, k1 := d.kcut[r], d.kcut[r+1]
			for _, t := range d.tiles {
				a := d.wp[t.r0*d.kk:]
				var b *float32
				if bias != nil && k1 == d.kk {
					b = &bias[t.r0]
				}
				for g := range calls {
					xp := &xs[oy*xrow+g*4*L]
					if d.inPlace {
						yrow := d.ow
						if d.rows == 1 {
							yrow = d.pairStep
						}
						d.k.conv(t.h, k1-k0, &a[k0*t.h], xp, &d.off[k0], rowStep*f,
							&y[t.r0*P+oy*d.ow+g*4*L], yrow*f, P*f, groups, b, k0 > 0)
					} else {
						yrow := pitch
						if d.rows == 1 {
							yrow = 2 * L
						}
						d.k.conv(t.h, k1-k0, &a[k0*t.h], xp, &d.off[k0], rowStep*f,
							&band[t.r0*d.rows*pitch+g*4*L], yrow*f, d.rows*pitch*f, groups, b, k0 > 0)
					}
				}
			}
		}
		if !d.inPlace {
			for c := range d.m {
				for r := oy; r < min(d.oh, oy+d.rows); r++ {
					copy(y[c*P+r*d.ow:][:d.ow], band[(d.rows*c+r-oy)*pitch:])
				}
			}
		}
	}
	if relu {
		out := y[:d.m*P]
		Relu(out, out, slope)
	}
}

// WeightGrad adds to dw (Caffe's [outputs][channels][kh][kw]) the weight
// gradient of n images: their input x and output gradient dy (NCHW).
// scratch is Forward's (ScratchSize floats, zero when first used). It is
// GradBegin, GradAdd and GradEnd in one.
func (d *RowConv) WeightGrad(scratch, x, dy []float32, n int, dw []float32) {
	d.GradBegin(scratch)
	d.GradAdd(scratch, x, dy, n)
	d.GradEnd(scratch, dw, nil)
}

// GradBias reports whether GradEnd gives the bias gradient too: the sums
// of the output gradient, in the lanes beside the weights' (where the
// weights are not a whole number of the kernels' tiles, which leaves a
// place: CIFAR-10 quick's 75, AlexNet's 363).
func (d *RowConv) GradBias() bool { return d.biasSlot }

// GradBegin clears the weight gradient's sums in scratch.
func (d *RowConv) GradBegin(scratch []float32) {
	d.checkScratch("GradBegin", scratch)
	clear(d.accOf(scratch))
	if d.biasSlot {
		ones := scratch[d.xSize+d.fxSize:][:d.onesSize]
		for i := range ones {
			ones[i] = 1
		}
	}
}

// GradAdd adds the weight gradient of n images (input x, output gradient
// dy, NCHW) to the sums in scratch: the products of a tile of output
// channels and of weights are summed in the lanes, which hold
// neighbouring output pixels of a row, over the rows of a band, the
// bands and the images in order.
func (d *RowConv) GradAdd(scratch, x, dy []float32, n int) {
	d.checkScratch("GradAdd", scratch)
	switch {
	case n < 0 || len(x) < n*d.c*d.h*d.w:
		panic(fmt.Sprintf("kernel: RowConv.GradAdd: len(x) = %d, want >= %d", len(x), n*d.c*d.h*d.w))
	case len(dy) < n*d.m*d.oh*d.ow:
		panic(fmt.Sprintf("kernel: RowConv.GradAdd: len(dy) = %d, want >= %d", len(dy), n*d.m*d.oh*d.ow))
	}
	acc := d.accOf(scratch)
	if d.flat {
		d.gradAddFlat(acc, scratch[d.xSize:][:d.fxSize], scratch[d.fixed()+d.accSize:], x, dy, n)
		return
	}
	const f = 4
	L, V, P := d.k.lanes, 4*d.k.lanes, d.oh*d.ow
	xs := scratch[:d.xSize]
	dyp := scratch[d.fixed()+d.accSize:][:d.dypSize]
	xrow := d.sh * d.sw * d.qw
	dych, dyrow := P, d.ow
	if d.gradCopy {
		dych, dyrow = d.oh*d.nvec*L, d.nvec*L
	}
	for j := range n {
		d.load(xs, x[j*d.c*d.h*d.w:])
		g := dy[j*d.m*P : (j+1)*d.m*P]
		if d.gradCopy {
			// Rows of whole vectors, the lanes past the row zero.
			for r := range d.m * d.oh {
				row := dyp[r*d.nvec*L : (r+1)*d.nvec*L]
				copy(row, g[r*d.ow:(r+1)*d.ow])
				clear(row[d.ow:])
			}
			g = dyp
		}
		for r0 := 0; r0 < d.oh; r0 += d.gRows {
			nr := min(d.gRows, d.oh-r0)
			for _, t := range d.gTiles {
				for k := 0; k < d.kp; k += d.k.gnr {
					d.k.grad(t.h, &g[t.r0*dych+r0*dyrow], dych*f, (dyrow-d.nvec*L)*f, &xs[r0*xrow], &d.off[k],
						(xrow-d.nvec*L)*f, nr, d.nvec, &acc[(t.r0*d.kp+k)*L], d.kp*V)
				}
			}
		}
	}
}

// GradEnd adds the lanes of the sums in scratch to dw (Caffe's
// [outputs][channels][kh][kw]), and, if db is not nil (only where
// GradBias), those of the output gradient's sums to db (per output
// channel).
func (d *RowConv) GradEnd(scratch, dw, db []float32) {
	d.checkScratch("GradEnd", scratch)
	switch {
	case len(dw) < d.m*d.kk:
		panic(fmt.Sprintf("kernel: RowConv.GradEnd: len(dw) = %d, want >= %d", len(dw), d.m*d.kk))
	case db != nil && !d.biasSlot:
		panic("kernel: RowConv.GradEnd: no bias gradient (GradBias is false)")
	case db != nil && len(db) < d.m:
		panic(fmt.Sprintf("kernel: RowConv.GradEnd: len(db) = %d, want >= %d", len(db), d.m))
	}
	acc := d.accOf(scratch)
	L := d.k.lanes
	sums := laneSumsOf(L)
	if d.flat {
		d.gradEndFlat(acc, dw, db)
		return
	}
	if db != nil {
		for r := range d.m {
			sums(&db[r], &acc[(r*d.kp+d.kk)*L], 1)
		}
	}
	for r := range d.m {
		sums(&dw[r*d.kk], &acc[r*d.kp*L], d.kk)
	}
}

// accOf returns the weight gradient's sums in scratch.
func (d *RowConv) accOf(scratch []float32) []float32 {
	return scratch[d.fixed():][:d.accSize]
}

func (d *RowConv) checkScratch(name string, scratch []float32) {
	if len(scratch) < d.ScratchSize() {
		panic(fmt.Sprintf("kernel: RowConv.%s: len(scratch) = %d, want >= %d", name, len(scratch), d.ScratchSize()))
	}
}

// load writes the image x into its padded, phase-split copy xs.
func (d *RowConv) load(xs, x []float32) {
	for c := range d.c {
		for r := range d.h {
			src := x[(c*d.h+r)*d.w:][:d.w]
			row := xs[(c*d.phr+r+d.padH)*d.sw*d.qw:][:d.sw*d.qw]
			if d.sw == 1 {
				copy(row[d.padW:], src)
				continue
			}
			for p := range d.sw {
				// The first column of the image in phase p.
				col := ((p-d.padW)%d.sw + d.sw) % d.sw
				dst := row[p*d.qw+(col+d.padW)/d.sw:]
				for i := 0; col < d.w; i, col = i+1, col+d.sw {
					dst[i] = src[col]
				}
			}
		}
	}
}

// laneSumsOf returns the lane sums of the implementation whose vectors
// hold lanes floats.
func laneSumsOf(lanes int) func(dst, src *float32, n int) {
	if active.direct != nil && active.direct.lanes == lanes {
		return active.direct.laneSums
	}
	return laneSumsGo(lanes)
}

// rowGradGo is the portable weight-gradient kernel of lanes floats per
// vector and tiles of nr weights: the reference the assembly is tested
// against.
func rowGradGo(lanes, nr int) func(mr int, dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int) {
	return func(mr int, dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int) {
		os := unsafe.Slice(offs, nr)
		V := 4 * lanes
		dyrow, xrow := dyskip+nvec*V, xskip+nvec*V
		for i := range mr {
			for j := range nr {
				for l := range lanes {
					dst := at(acc, i*accRow+j*V+4*l)
					s := *dst
					for r := range nrows {
						for v := range nvec {
							s += *at(dy, i*dych+r*dyrow+v*V+4*l) * *at(x, int(os[j])+r*xrow+v*V+4*l)
						}
					}
					*dst = s
				}
			}
		}
	}
}

// rowGradTGo is the portable kernel of the flat weight gradient with the
// output channels in the lanes (rowKernels.gradT), lanes floats per
// vector and tiles of nr weights: the reference the assembly is tested
// against.
func rowGradTGo(lanes, nr int) func(mr int, dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int) {
	return func(mr int, dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int) {
		os := unsafe.Slice(offs, nr)
		xrow := 4*npix + xskip
		for j := range nr {
			for i := range mr {
				for l := range lanes {
					dst := at(acc, j*accRow+4*(i*lanes+l))
					s := *dst
					for r := range nrows {
						for t := range npix {
							s += *at(x, int(os[j])+r*xrow+4*t) * *at(dy, (r*npix+t)*dyStep+4*(i*lanes+l))
						}
					}
					*dst = s
				}
			}
		}
	}
}

// rowFlatGo is the portable kernel of the forward pass on flat rows
// (rowKernels.flat), lanes floats per vector and nv vectors: the
// reference the assembly is tested against.
func rowFlatGo(lanes, nv int) func(mr, k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool) {
	return func(mr, k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool) {
		as := unsafe.Slice(a, k*mr)
		offs := unsafe.Slice(off, k)
		for i := range mr {
			for l := range nv * lanes {
				var s float32
				for kk := range k {
					s += as[kk*mr+i] * *at(x, int(offs[kk])+4*l)
				}
				if load {
					s += *at(y, i*ych+4*l)
				}
				if bias != nil {
					s += *at(bias, 4*i)
				}
				*at(y, i*ych+4*l) = s
			}
		}
	}
}

// rowConvGo is the portable row-convolution kernel of lanes floats per
// vector: the reference the assembly is tested against. As the assembly,
// a group reads all its outputs (load) before it writes any, so that
// vectors of a group may overlap.
func rowConvGo(lanes int) func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool) {
	return func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool) {
		as := unsafe.Slice(a, k*mr)
		offs := unsafe.Slice(off, k)
		sums := make([]float32, mr*4*lanes)
		for g := range npair {
			for i := range mr {
				for r := range 2 {
					for l := range 2 * lanes {
						px := 4 * (2*g*lanes + l)
						var s float32
						for kk := range k {
							s += as[kk*mr+i] * *at(x, int(offs[kk])+r*xrow+px)
						}
						if load {
							s += *at(y, i*ych+r*yrow+px)
						}
						sums[(i*2+r)*2*lanes+l] = s
					}
				}
			}
			for i := range mr {
				for r := range 2 {
					for l := range 2 * lanes {
						s := sums[(i*2+r)*2*lanes+l]
						if bias != nil {
							s += *at(bias, 4*i)
						}
						*at(y, i*ych+r*yrow+4*(2*g*lanes+l)) = s
					}
				}
			}
		}
	}
}
