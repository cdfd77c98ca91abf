package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() { registerComputed("Convolution", newConvolution) }

// Tuning of the chunked products, measured by BenchmarkLayerConvChunks;
// variables so that benchmarks can vary them.
var (
	// convColBudget is how many values the column matrix of one chunk of
	// images may hold: chunks small enough for the columns to stay in the
	// core's cache while the products read them were fastest.
	convColBudget = 1 << 17
	// convKeepBudget: when the columns of the whole batch have at most
	// this many values, Forward keeps every chunk's columns for Backward
	// instead of Backward rebuilding them.
	convKeepBudget = 4 << 20
)

// Convolution is Caffe's 2-D convolution: num_output filters of
// (channels/group)×kernel_h×kernel_w, with padding, stride, dilation and
// groups, weights [num_output, channels/group, kh, kw] and an optional bias
// [num_output]. The output extent is (in + 2·pad − (dilation·(k−1)+1)) /
// stride + 1, rounded down. Several bottoms are convolved with the same
// weights into as many tops.
//
// The products run over several images at once: the columns (im2col) of a
// chunk of images lie side by side, so Forward is one product
// W[M, K] × cols[K, images·pixels] per group and chunk, and the weight
// gradient one product per chunk whose inner dimension spans the chunk's
// images. Chunks are as large as the cache allows (convColBudget).
type Convolution struct {
	layerBase
	numOutput, group int
	bias             bool
	kh, kw           int
	padH, padW       int
	strideH, strideW int
	dilH, dilW       int
	axisParam        int

	// Set by Reshape.
	axis             int // channel axis
	num              int // images: count(0, axis)
	channels         int
	height, width    int
	outH, outW       int
	imgSize, outSize int
	oneByOne         bool
	chunk            int  // images per product
	chunks           int  // chunks in the batch
	workers          int  // goroutines sharing the chunks
	gemmThreads      int  // goroutines of each product
	keep             bool // col holds the columns of every chunk
	col              []float32
	scratch          []*convScratch // one per worker
	colFor           int            // bottom whose columns are kept, or -1

	// The current call, for the workers.
	runner                 parallelRunner
	fwdFn, bwdFn           func(w int)
	x, y, dy, dx           []float32
	wantW, wantB, wantDown bool
	haveCols               bool
}

var _ Layer = (*Convolution)(nil)

func newConvolution(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetConvolutionParam())
	l := &Convolution{
		layerBase: newLayerBase("Convolution", def, env),
		numOutput: int(p.GetNumOutput()),
		group:     int(p.GetGroup()),
		bias:      p.GetBiasTerm(),
		axisParam: int(p.GetAxis()),
		colFor:    -1,
	}
	l.fwdFn, l.bwdFn = l.forwardWorker, l.backwardWorker
	if l.numOutput <= 0 {
		return nil, fmt.Errorf("convolution_param.num_output must be > 0")
	}
	if l.group <= 0 {
		return nil, fmt.Errorf("convolution_param.group must be > 0, got %d", l.group)
	}
	if l.numOutput%l.group != 0 {
		return nil, fmt.Errorf("num_output %d is not a multiple of group %d", l.numOutput, l.group)
	}
	if p.GetForceNdIm2Col() {
		return nil, fmt.Errorf("force_nd_im2col: only 2-D convolution is supported")
	}
	var err error
	if l.kh, l.kw, err = convDims("kernel", p.GetKernelSize(), p.KernelH, p.KernelW, 0); err != nil {
		return nil, err
	}
	if l.kh <= 0 || l.kw <= 0 {
		return nil, fmt.Errorf("kernel size %d×%d: filter dimensions must be nonzero", l.kh, l.kw)
	}
	if l.strideH, l.strideW, err = convDims("stride", p.GetStride(), p.StrideH, p.StrideW, 1); err != nil {
		return nil, err
	}
	if l.strideH <= 0 || l.strideW <= 0 {
		return nil, fmt.Errorf("stride %d×%d: stride dimensions must be nonzero", l.strideH, l.strideW)
	}
	if l.padH, l.padW, err = convDims("pad", p.GetPad(), p.PadH, p.PadW, 0); err != nil {
		return nil, err
	}
	if l.dilH, l.dilW, err = convDims("dilation", p.GetDilation(), nil, nil, 1); err != nil {
		return nil, err
	}
	if l.dilH <= 0 || l.dilW <= 0 {
		return nil, fmt.Errorf("dilation %d×%d: dilation must be nonzero", l.dilH, l.dilW)
	}
	if err := CheckFiller(p.GetWeightFiller()); err != nil {
		return nil, fmt.Errorf("weight_filler: %w", err)
	}
	if err := CheckFiller(p.GetBiasFiller()); err != nil {
		return nil, fmt.Errorf("bias_filler: %w", err)
	}
	l.oneByOne = l.kh == 1 && l.kw == 1 && l.strideH == 1 && l.strideW == 1 && l.padH == 0 && l.padW == 0
	return l, nil
}

// convDims reads one 2-D convolution setting the way Caffe does: given
// once for both axes or once per axis in the repeated field, or as the
// _h/_w pair (not both forms); def when absent.
func convDims(name string, rep []uint32, h, w *uint32, def int) (int, int, error) {
	if h != nil || w != nil {
		if len(rep) != 0 {
			return 0, 0, fmt.Errorf("either %s or %s_h/%s_w should be specified; not both", name, name, name)
		}
		if h == nil || w == nil {
			return 0, 0, fmt.Errorf("%s_h and %s_w must be given together", name, name)
		}
		return int(*h), int(*w), nil
	}
	switch len(rep) {
	case 0:
		if name == "kernel" {
			return 0, 0, fmt.Errorf("kernel_size (or kernel_h and kernel_w) is required")
		}
		return def, def, nil
	case 1:
		return int(rep[0]), int(rep[0]), nil
	case 2:
		return int(rep[0]), int(rep[1]), nil
	}
	return 0, 0, fmt.Errorf("%s given %d times; give it once, or once per spatial axis (2)", name, len(rep))
}

// Setup checks the geometry and creates and fills the weights and bias.
func (l *Convolution) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, -1, 1, -1); err != nil {
		return err
	}
	if len(bottom) != len(top) {
		return l.errorf("takes one top per bottom, got %d bottoms and %d tops", len(bottom), len(top))
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	b := bottom[0]
	axis, err := canonicalAxis("convolution_param.axis", l.axisParam, b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	if b.NumAxes()-axis-1 != 2 {
		return l.errorf("input of shape %v has %d spatial axes after channel axis %d; only 2-D convolution is supported",
			b.shape, b.NumAxes()-axis-1, axis)
	}
	l.axis = axis
	l.channels = b.Dim(axis)
	if l.channels%l.group != 0 {
		return l.errorf("%d input channels is not a multiple of group %d", l.channels, l.group)
	}
	shapes := [][]int{{l.numOutput, l.channels / l.group, l.kh, l.kw}}
	if l.bias {
		shapes = append(shapes, []int{l.numOutput})
	}
	p := orDefaults(l.def.GetConvolutionParam())
	rng := l.fillRNG()
	err = l.initParams(shapes, func(i int, b *Blob) error {
		if i == 0 {
			return FillBlob(b, p.GetWeightFiller(), rng)
		}
		return FillBlob(b, p.GetBiasFiller(), rng)
	})
	if err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape computes the output shape and sizes the column buffers.
func (l *Convolution) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if b.NumAxes() != l.axis+3 || b.Dim(l.axis) != l.channels {
		return l.errorf("input shape %v: want %d axes with %d channels at axis %d", b.shape, l.axis+3, l.channels, l.axis)
	}
	for i, o := range bottom[1:] {
		if !sameShape(o, b) {
			return l.errorf("bottom %d has shape %v, bottom 0 has %v; all bottoms must have the same shape", i+1, o.shape, b.shape)
		}
	}
	l.num = b.CountRange(0, l.axis)
	l.height, l.width = b.Dim(l.axis+1), b.Dim(l.axis+2)
	l.outH = kernel.ConvOutSize(l.height, l.kh, l.padH, l.strideH, l.dilH)
	l.outW = kernel.ConvOutSize(l.width, l.kw, l.padW, l.strideW, l.dilW)
	if l.outH <= 0 || l.outW <= 0 {
		return l.errorf("input %d×%d is smaller than the dilated kernel %d×%d with padding %d×%d",
			l.height, l.width, l.dilH*(l.kh-1)+1, l.dilW*(l.kw-1)+1, l.padH, l.padW)
	}
	for _, t := range top {
		reshapeHead(t, b, l.axis, l.numOutput, l.outH, l.outW)
	}
	l.imgSize = l.channels * l.height * l.width
	l.outSize = l.numOutput * l.outH * l.outW

	k, p := l.channels*l.kh*l.kw, l.outH*l.outW
	l.chunk = max(1, min(l.num, convColBudget/(k*p)))
	l.chunks = (l.num + l.chunk - 1) / l.chunk
	l.workers = max(1, min(l.threads(), l.chunks))
	l.gemmThreads = 1
	if l.workers == 1 {
		l.gemmThreads = l.threads()
	}
	cols := l.chunk * p
	l.keep = k*p*l.num <= convKeepBudget && !(l.oneByOne && l.chunk == 1)
	if l.keep {
		l.col = growFloats(l.col, k*p*l.num)
	}
	for len(l.scratch) < l.workers {
		l.scratch = append(l.scratch, &convScratch{})
	}
	padN := 0
	if l.padH != 0 || l.padW != 0 {
		padN = l.channels * (l.height + 2*l.padH) * (l.width + 2*l.padW)
	}
	for _, s := range l.scratch[:l.workers] {
		if !l.keep && (l.chunk > 1 || !l.oneByOne) {
			s.col = growFloats(s.col, k*cols)
		}
		if l.chunk > 1 {
			s.buf = growFloats(s.buf, l.numOutput*cols)
		}
		s.bufT = growFloats(s.bufT, l.numOutput*cols)
		s.dwT = growFloats(s.dwT, k/l.group*l.numOutput)
		s.db = growFloats(s.db, l.numOutput)
		s.padded = growFloats(s.padded, padN)
		clear(s.padded) // im2col writes only the inside: the border stays zero
		s.paddedDiff = growFloats(s.paddedDiff, padN)
		s.colChunk = -1
	}
	l.colFor = -1
	return nil
}

// convScratch is one worker's buffers.
type convScratch struct {
	col        []float32 // the columns of a chunk (unless kept for all)
	buf        []float32 // [M, chunk·pixels]: output or top gradient of a chunk
	bufT       []float32 // [chunk·pixels, M]: the top gradient transposed
	dwT        []float32 // [K/group, M] per group: weight gradient transposed
	db         []float32 // bias gradient
	padded     []float32 // one image with its zero border
	paddedDiff []float32 // the gradient of one padded image
	colChunk   int       // first image of the chunk whose columns col holds, or -1
	wroteDW    bool      // dwT holds a gradient
}

// growFloats returns s resliced to n values, reallocated only when its
// capacity is too small.
func growFloats(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

func sameShape(a, b *Blob) bool {
	if len(a.shape) != len(b.shape) {
		return false
	}
	for i, d := range a.shape {
		if b.shape[i] != d {
			return false
		}
	}
	return true
}

// Forward convolves every bottom into its top.
func (l *Convolution) Forward(bottom, top []*Blob) error {
	for i := range bottom {
		l.x, l.y = bottom[i].DataSlice(), top[i].DataSlice()
		l.runner.run(l.workers, l.fwdFn)
	}
	l.x, l.y = nil, nil
	// The workers' buffers keep the last bottom's columns.
	l.colFor = len(bottom) - 1
	return nil
}

// forwardWorker convolves the chunks w, w+workers, ….
func (l *Convolution) forwardWorker(w int) {
	s := l.scratch[w]
	for c := w; c < l.chunks; c += l.workers {
		start := c * l.chunk
		l.forwardChunk(s, start, min(l.chunk, l.num-start))
		s.colChunk = start
	}
}

func (l *Convolution) forwardChunk(s *convScratch, start, nb int) {
	m, mg := l.numOutput, l.numOutput/l.group
	kg := l.channels / l.group * l.kh * l.kw
	p := l.outH * l.outW
	cols := nb * p
	w := l.blobs[0].DataSlice()
	y := l.y
	col := l.columns(s, l.x[start*l.imgSize:(start+nb)*l.imgSize], start, nb)
	out := s.buf
	if l.chunk == 1 {
		out = y[start*l.outSize : (start+1)*l.outSize]
	}
	beta := float32(0)
	if l.bias {
		bias := l.blobs[1].DataSlice()
		for j := range m {
			fillFloats(out[j*cols:(j+1)*cols], bias[j])
		}
		beta = 1
	}
	for g := range l.group {
		kernel.SgemmParallel(l.gemmThreads, false, false, mg, cols, kg,
			1, w[g*mg*kg:], kg, col[g*kg*cols:], cols, beta, out[g*mg*cols:], cols)
	}
	if l.chunk > 1 {
		// out is [M, images·pixels]; the top is [images, M, pixels].
		for j := range nb {
			dst := y[(start+j)*l.outSize : (start+j+1)*l.outSize]
			for c := range m {
				copy(dst[c*p:(c+1)*p], out[c*cols+j*p:c*cols+(j+1)*p])
			}
		}
	}
}

// columns builds the column matrix [K, nb·pixels] of the nb images of
// img, the chunk starting at image start, and returns it; a 1×1
// convolution of one image uses the image itself.
func (l *Convolution) columns(s *convScratch, img []float32, start, nb int) []float32 {
	if l.oneByOne && nb == 1 {
		return img
	}
	p := l.outH * l.outW
	col := l.colRegion(s, start, nb)
	for j := range nb {
		l.im2col(img[j*l.imgSize:(j+1)*l.imgSize], col[j*p:], nb*p, s.padded)
	}
	return col
}

// colRegion returns where the columns of the chunk of nb images starting
// at image start go: their place in l.col when every chunk's columns are
// kept, else the worker's buffer.
func (l *Convolution) colRegion(s *convScratch, start, nb int) []float32 {
	n := l.channels * l.kh * l.kw * l.outH * l.outW
	if l.keep {
		return l.col[start*n : (start+nb)*n]
	}
	return s.col[:nb*n]
}

// fillFloats sets every element of s to v.
func fillFloats(s []float32, v float32) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
}

// Backward accumulates the weight and bias gradients and computes the
// bottoms' gradients. The weight gradient is computed transposed, dWᵀ =
// cols × dYᵀ, so that both operands of the products are read along their
// rows; each worker sums its chunks' share, and the shares are added to
// the weights' gradient in worker order.
func (l *Convolution) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	l.wantW = l.paramGrad(0)
	l.wantB = l.bias && l.paramGrad(1)
	m, mg := l.numOutput, l.numOutput/l.group
	kg := l.channels / l.group * l.kh * l.kw
	// The last bottom first: its columns may still be in the buffers.
	for i := len(top) - 1; i >= 0; i-- {
		l.wantDown = i < len(propagateDown) && propagateDown[i]
		if !l.wantW && !l.wantB && !l.wantDown {
			continue
		}
		l.haveCols = l.colFor == i
		l.dy, l.x, l.dx = top[i].DiffSlice(), bottom[i].DataSlice(), bottom[i].DiffSlice()
		l.runner.run(l.workers, l.bwdFn)
		l.colFor = -1
		for _, s := range l.scratch[:l.workers] {
			if l.wantB {
				kernel.Add(l.blobs[1].DiffSlice(), l.blobs[1].DiffSlice(), s.db[:m])
			}
			if !s.wroteDW {
				continue
			}
			dw := l.blobs[0].DiffSlice()
			for gr := range l.group {
				t := s.dwT[gr*kg*mg : (gr+1)*kg*mg]
				d := dw[gr*mg*kg : (gr+1)*mg*kg]
				for c := range mg {
					row := d[c*kg : (c+1)*kg]
					for k := range row {
						row[k] += t[k*mg+c]
					}
				}
			}
		}
	}
	l.x, l.dx, l.dy = nil, nil, nil
	l.colFor = -1
}

// backwardWorker handles the chunks w, w+workers, …, the last first (its
// columns may still be in the worker's buffer).
func (l *Convolution) backwardWorker(w int) {
	s := l.scratch[w]
	clear(s.db)
	s.wroteDW = false
	for c := w + (l.chunks-1-w)/l.workers*l.workers; c >= w && l.num > 0; c -= l.workers {
		start := c * l.chunk
		l.backwardChunk(s, start, min(l.chunk, l.num-start))
	}
	s.colChunk = -1
}

func (l *Convolution) backwardChunk(s *convScratch, start, nb int) {
	m, mg := l.numOutput, l.numOutput/l.group
	kg := l.channels / l.group * l.kh * l.kw
	p := l.outH * l.outW
	cols := nb * p
	dyc := l.dy[start*l.outSize : (start+nb)*l.outSize]
	if l.wantB {
		for j := range nb {
			for c := range m {
				s.db[c] += kernel.Sum(dyc[j*l.outSize+c*p : j*l.outSize+(c+1)*p])
			}
		}
	}
	if l.wantW {
		// dYᵀ of the chunk: [images·pixels, M].
		gT := s.bufT[:cols*m]
		for j := range nb {
			for c := range m {
				src := dyc[j*l.outSize+c*p : j*l.outSize+(c+1)*p]
				dst := gT[j*p*m+c:]
				for q, v := range src {
					dst[q*m] = v
				}
			}
		}
		var col []float32
		switch {
		case l.oneByOne && nb == 1:
			col = l.x[start*l.imgSize : (start+1)*l.imgSize]
		case l.haveCols && (l.keep || start == s.colChunk):
			col = l.colRegion(s, start, nb)
		default:
			col = l.columns(s, l.x[start*l.imgSize:(start+nb)*l.imgSize], start, nb)
		}
		beta := float32(1)
		if !s.wroteDW {
			beta = 0
		}
		for gr := range l.group {
			kernel.SgemmParallel(l.gemmThreads, false, false, kg, mg, cols,
				1, col[gr*kg*cols:], cols, gT[gr*mg:], m, beta, s.dwT[gr*kg*mg:], mg)
		}
		s.wroteDW = true
	}
	if !l.wantDown {
		return
	}
	g := dyc
	if l.chunk > 1 {
		// dY of the chunk: [M, images·pixels].
		g = s.buf[:m*cols]
		for j := range nb {
			for c := range m {
				copy(g[c*cols+j*p:c*cols+(j+1)*p], dyc[j*l.outSize+c*p:j*l.outSize+(c+1)*p])
			}
		}
	}
	w := l.blobs[0].DataSlice()
	img := l.dx[start*l.imgSize : (start+nb)*l.imgSize]
	if l.oneByOne && nb == 1 {
		for gr := range l.group {
			kernel.SgemmParallel(l.gemmThreads, true, false, kg, cols, mg,
				1, w[gr*mg*kg:], kg, g[gr*mg*cols:], cols, 0, img[gr*kg*cols:], cols)
		}
		return
	}
	col := l.colRegion(s, start, nb)
	for gr := range l.group {
		kernel.SgemmParallel(l.gemmThreads, true, false, kg, cols, mg,
			1, w[gr*mg*kg:], kg, g[gr*mg*cols:], cols, 0, col[gr*kg*cols:], cols)
	}
	for j := range nb {
		l.col2im(col[j*p:], cols, img[j*l.imgSize:(j+1)*l.imgSize], s.paddedDiff)
	}
}

// im2col writes the columns of one image into col, whose rows (one per
// channel and kernel offset) are ld apart; each row gets outH·outW
// values. Positions in the padding read as zero.
func (l *Convolution) im2col(img, col []float32, ld int, padded []float32) {
	if l.strideW == 1 {
		l.im2colPadded(img, col, ld, padded)
		return
	}
	l.im2colClipped(img, col, ld)
}

// im2colPadded is im2col for horizontal stride 1: the image is copied
// into a zero-bordered plane (unless it has no padding), so that every
// run of a column row is one plain copy.
func (l *Convolution) im2colPadded(img, col []float32, ld int, padded []float32) {
	src, hp, wp := l.padImage(img, padded)
	ow, oh := l.outW, l.outH
	step := l.strideH * wp
	r := 0
	for c := range l.channels {
		plane := src[c*hp*wp : (c+1)*hp*wp]
		for ki := range l.kh {
			for kj := range l.kw {
				dst := col[r*ld : r*ld+oh*ow]
				r++
				at := ki*l.dilH*wp + kj*l.dilW
				for i := 0; i < len(dst); i += ow {
					copy(dst[i:i+ow], plane[at:at+ow])
					at += step
				}
			}
		}
	}
}

// padImage copies the image into padded, whose border is zero, and
// returns it with the padded extents (the image itself without padding).
func (l *Convolution) padImage(img, padded []float32) ([]float32, int, int) {
	if l.padH == 0 && l.padW == 0 {
		return img, l.height, l.width
	}
	hp, wp := l.height+2*l.padH, l.width+2*l.padW
	dst := padded[:l.channels*hp*wp]
	for c := range l.channels {
		plane := dst[c*hp*wp:]
		for y := range l.height {
			copy(plane[(y+l.padH)*wp+l.padW:(y+l.padH)*wp+l.padW+l.width], img[(c*l.height+y)*l.width:])
		}
	}
	return dst, hp, wp
}

// im2colClipped is im2col for any stride: runs are clipped to the image.
func (l *Convolution) im2colClipped(img, col []float32, ld int) {
	width, hw := l.width, l.height*l.width
	ow, oh := l.outW, l.outH
	sh, sw := l.strideH, l.strideW
	r := 0
	for c := range l.channels {
		plane := img[c*hw : (c+1)*hw]
		for ki := range l.kh {
			oy0, oy1 := l.rowSpan(ki)
			y0 := oy0*sh - l.padH + ki*l.dilH
			for kj := range l.kw {
				dst := col[r*ld : r*ld+oh*ow]
				r++
				off := kj*l.dilW - l.padW
				lo, hi := l.span(off)
				clear(dst[:oy0*ow])
				clear(dst[oy1*ow:])
				rows := dst[oy0*ow : oy1*ow]
				y := y0
				switch {
				case sw == 1 && lo == 0 && hi == ow:
					for i := 0; i < len(rows); i += ow {
						copy(rows[i:i+ow], plane[y*width+off:])
						y += sh
					}
				case sw == 1:
					for i := 0; i < len(rows); i += ow {
						d := rows[i : i+ow]
						zeroRun(d[:lo])
						copy(d[lo:hi], plane[y*width+lo+off:])
						zeroRun(d[hi:])
						y += sh
					}
				default:
					for i := 0; i < len(rows); i += ow {
						d := rows[i : i+ow]
						zeroRun(d[:lo])
						zeroRun(d[hi:])
						row := plane[y*width : (y+1)*width]
						x := lo*sw + off
						for ox := lo; ox < hi; ox++ {
							d[ox] = row[x]
							x += sw
						}
						y += sh
					}
				}
			}
		}
	}
}

// col2im sets img to zero and adds the columns of one image (rows ld
// apart, as im2col wrote them) back into the positions they were read
// from.
func (l *Convolution) col2im(col []float32, ld int, img, paddedDiff []float32) {
	if l.strideW == 1 {
		l.col2imPadded(col, ld, img, paddedDiff)
		return
	}
	l.col2imClipped(col, ld, img)
}

// col2imPadded is col2im for horizontal stride 1: the runs are added into
// a zero-bordered plane, whose inside is then copied out.
func (l *Convolution) col2imPadded(col []float32, ld int, img, paddedDiff []float32) {
	hp, wp := l.height+2*l.padH, l.width+2*l.padW
	dst := img
	if l.padH != 0 || l.padW != 0 {
		dst = paddedDiff[:l.channels*hp*wp]
	}
	clear(dst)
	ow, oh := l.outW, l.outH
	step := l.strideH * wp
	r := 0
	for c := range l.channels {
		plane := dst[c*hp*wp : (c+1)*hp*wp]
		for ki := range l.kh {
			for kj := range l.kw {
				src := col[r*ld : r*ld+oh*ow]
				r++
				at := ki*l.dilH*wp + kj*l.dilW
				for i := 0; i < len(src); i += ow {
					addRun(plane[at:at+ow], src[i:i+ow])
					at += step
				}
			}
		}
	}
	if l.padH == 0 && l.padW == 0 {
		return
	}
	for c := range l.channels {
		plane := dst[c*hp*wp:]
		for y := range l.height {
			copy(img[(c*l.height+y)*l.width:(c*l.height+y+1)*l.width], plane[(y+l.padH)*wp+l.padW:])
		}
	}
}

// col2imClipped is col2im for any stride.
func (l *Convolution) col2imClipped(col []float32, ld int, img []float32) {
	clear(img)
	width, hw := l.width, l.height*l.width
	ow, oh := l.outW, l.outH
	sh, sw := l.strideH, l.strideW
	r := 0
	for c := range l.channels {
		plane := img[c*hw : (c+1)*hw]
		for ki := range l.kh {
			oy0, oy1 := l.rowSpan(ki)
			y0 := oy0*sh - l.padH + ki*l.dilH
			for kj := range l.kw {
				src := col[r*ld : r*ld+oh*ow]
				r++
				off := kj*l.dilW - l.padW
				lo, hi := l.span(off)
				if lo >= hi {
					continue
				}
				rows := src[oy0*ow : oy1*ow]
				y := y0
				if sw == 1 {
					n := hi - lo
					for i := 0; i < len(rows); i += ow {
						base := y*width + lo + off
						addRun(plane[base:base+n], rows[i+lo:i+hi])
						y += sh
					}
					continue
				}
				for i := 0; i < len(rows); i += ow {
					s := rows[i : i+ow]
					row := plane[y*width : (y+1)*width]
					x := lo*sw + off
					for ox := lo; ox < hi; ox++ {
						row[x] += s[ox]
						x += sw
					}
					y += sh
				}
			}
		}
	}
}

// rowSpan returns the range [oy0, oy1) of output rows whose input row for
// kernel row ki lies inside the image.
func (l *Convolution) rowSpan(ki int) (oy0, oy1 int) {
	off := ki*l.dilH - l.padH
	if off < 0 {
		oy0 = (-off + l.strideH - 1) / l.strideH
	}
	if rest := l.height - off; rest > 0 {
		oy1 = (rest + l.strideH - 1) / l.strideH
	}
	oy1 = min(oy1, l.outH)
	return min(oy0, oy1), oy1
}

// zeroRun zeroes a short run; a loop beats a call for the few values at
// the padded edges.
func zeroRun(d []float32) {
	for i := range d {
		d[i] = 0
	}
}

// addRun adds s to d (of the same length): unrolled for the short runs of
// col2im, vectorised for long ones.
func addRun(d, s []float32) {
	if len(s) >= 32 {
		kernel.Add(d, d, s)
		return
	}
	d = d[:len(s)]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		dd, ss := d[i:i+4:i+4], s[i:i+4:i+4]
		dd[0] += ss[0]
		dd[1] += ss[1]
		dd[2] += ss[2]
		dd[3] += ss[3]
	}
	for ; i < len(s); i++ {
		d[i] += s[i]
	}
}

// span returns the range [lo, hi) of output columns whose input column
// ox·strideW + off lies inside the image; the others read the padding.
func (l *Convolution) span(off int) (lo, hi int) {
	if off < 0 {
		lo = (-off + l.strideW - 1) / l.strideW
	}
	if rest := l.width - off; rest > 0 {
		hi = (rest + l.strideW - 1) / l.strideW
	}
	hi = min(hi, l.outW)
	return min(lo, hi), hi
}
