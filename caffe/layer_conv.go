package caffe

import (
	"slices"
	"sync/atomic"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Convolution", Bottoms: AtLeast(1), Tops: AtLeast(1), New: newConvolution,
		Shape: ruleOf(func(l *Convolution, c *ShapeContext) error { return l.convSpec.inferShapes(c, convForward) })})
}

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
	// convGradBudget is how many values the buffers of the parts of a
	// multi-threaded Backward may hold, a weight gradient each.
	convGradBudget = 4 << 20
)

// Convolution is Caffe's 2-D convolution: num_output filters of
// (channels/group)×kernel_h×kernel_w, with padding, stride, dilation and
// groups, weights [num_output, channels/group, kh, kw] and an optional bias
// [num_output]. The output extent is (in + 2·pad − (dilation·(k−1)+1)) /
// stride + 1, rounded down. Several bottoms are convolved with the same
// weights into as many tops.
//
// Convolutions with stride 1, no dilation and a kernel larger than 1×1
// run on kernel.DirectConv when the kernels in use have it (see
// layer_conv_direct.go; one with few input channels and many outputs only
// its weight gradient, when its input wants none). Layers with few input
// channels (a net's first) run Forward, and where it suits them the
// weight gradient, on kernel.RowConv (layer_conv_rows.go). The others, the column path, are products over
// several images at once: the columns (im2col) of a
// chunk of images lie side by side, so Forward is one product
// W[M, K] × cols[K, images·pixels] per group and chunk, and the weight
// gradient one product dY·colsᵀ per chunk whose inner dimension spans the
// chunk's images. Chunks are as large as the cache allows (convColBudget).
// With several threads the chunks are shared out in parts that the threads
// claim one at a time; the parts' shares of the parameter gradients are
// added in a fixed order, so that results do not depend on the timing.
type Convolution struct {
	layerBase
	convSpec

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
	fwdParts         int  // parts the chunks are cut into in Forward
	bwdParts         int  // … in Backward, each with its share of the gradients
	gemmThreads      int  // goroutines of each product
	keep             bool // col holds the columns of every chunk
	col              []float32
	ones             []float32      // chunk·pixels ones, for adding the bias
	scratch          []*convScratch // one per worker
	grads            []*convGrads   // one per part of Backward
	colFor           int            // bottom whose columns are kept, or -1

	// The direct path (layer_conv_direct.go), nil on the column path;
	// wgrad, a column-path layer's weight gradient on the direct path
	// (when its input wants no gradient), or nil; dBwd, the state of a
	// direct Backward in progress.
	direct, wgrad, dBwd *convDirectState
	directGeom          [3]int
	dFwdFn, dBwdFn      func(w, p int)
	// chain: a convolution whose forward runs in this one's run, block by
	// block after this one's (Net.forwardChain); dChainFn runs a part of
	// both.
	chain                 *Convolution
	dChainFn, dBwdChainFn func(w, p int)
	// feedIn: the batch that a chained forward run feeds in pieces, or
	// nil (Net.forwardFed).
	feedIn *pieceFeed
	// helpRun: the convolution whose run a chained Backward's parts run
	// in, to which they offer their last block's weight gradient
	// (offerWeights), or a chained Forward's parts their block's pieces
	// (forwardPieces), else nil; offers: each goroutine's offered
	// weight gradient; dHelpFn runs one (helpWeights), dPieceFn a
	// block's pieces (helpPieces).
	helpRun *Convolution
	offers  []convOffer
	// mergeNext[w]: the part whose weight gradient goroutine w, having
	// just finished the one before it into the first part's gradient,
	// may add there too (mergeParts), −1 for none.
	mergeNext []int
	dHelpFn   func(w, a int)
	dPieceFn  func(w, a int)
	// addPartGradsShared's run: the parts added, the ranges, the run's
	// function.
	addParts, addRanges int
	dAddFn              func(w, p int)
	// A chained Backward's run: its tasks (dealTasks), the states
	// (taskTodo, …) of its parts and of the first convolution's ranges
	// of the adding, the function of such a range (addGradsPart), the
	// run's function (chainTask), and the parts whose weight gradient of
	// this convolution is complete.
	chainTasks   []int
	chainState   []atomic.Int32
	rangeState   []atomic.Int32
	dRangeFn     func(w, q int)
	dChainTaskFn func(w, p int)
	weightsDone  atomic.Int32
	// The row convolution of a column-path Forward
	// (layer_conv_rows.go), or nil.
	rows     *kernel.RowConv
	rowsGeom [3]int
	rBwdFn   func(w, p int)
	// The group the net runs fused with this layer (net_fuse.go), set
	// during the fused pass only.
	fused *convFusion

	// The current call, for the workers.
	runner parallelRunner
	// prepF, prepB: the direct plan whose weights were packed for
	// Forward or BackwardData ahead of the pass (net_prep.go), or nil;
	// prepParts: the pieces of that packing (forward, backward), and
	// prepLeft those not yet done.
	prepF, prepB           *kernel.DirectConv
	prepParts              [2]int
	prepLeft               [2]atomic.Int32
	fwdFn, bwdFn           func(w, p int)
	x, y, dy, dx           []float32
	wantW, wantB, wantDown bool
	haveCols               bool
	// writeDW makes Backward write the weight gradient instead of adding
	// it to the diff (paramDiffWriter); zeroDW is set while a run's part
	// 0, which adds into the diff itself, clears it first.
	writeDW, zeroDW bool
	// firstOwnDW is set while part 0 of a direct run that writes the
	// weight gradient (zeroDW) on several goroutines writes its share
	// into its own buffer, grads[0].dw, like the other parts, which the
	// adding copies into the diff (ownFirstDW).
	firstOwnDW bool
	// updateDW, when set, updates the weights (paramUpdater) once their
	// gradient is complete: in the parts that add the parts' gradients
	// (addPartGradsShared, which sets updated), else at the end of
	// Backward. oneBottom: the layer has one bottom (one gradient run).
	updateDW           func(w, lo, hi int, grad []float32)
	updated, oneBottom bool
}

var _ Layer = (*Convolution)(nil)

func newConvolution(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	spec, err := newConvSpec(def, true)
	if err != nil {
		return nil, err
	}
	l := &Convolution{layerBase: newLayerBase("Convolution", def, env), convSpec: spec, colFor: -1}
	l.fwdFn, l.bwdFn = l.forwardWorker, l.backwardWorker
	l.dFwdFn, l.dBwdFn = l.directForwardWorker, l.directBackwardWorker
	l.dChainFn, l.dBwdChainFn = l.chainForwardWorker, l.chainBackwardWorker
	l.dHelpFn = l.helpWeights
	l.dPieceFn = l.helpPieces
	l.dAddFn = l.addPartGradsPart
	l.dChainTaskFn = l.chainTask
	l.dRangeFn = l.addGradsPart
	l.rBwdFn = l.rowsBackwardWorker
	return l, nil
}

// Setup checks the geometry and creates and fills the weights and bias.
func (l *Convolution) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
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
	if err := l.setup2D(b.NumAxes(), axis); err != nil {
		return l.errorf("input of shape %v: %w", b.shape, err)
	}
	l.oneBottom = len(bottom) == 1
	l.oneByOne = l.kh == 1 && l.kw == 1 && l.strideH == 1 && l.strideW == 1 && l.padH == 0 && l.padW == 0
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
	if err := l.initWeightsBias(shapes, p.GetWeightFiller(), p.GetBiasFiller()); err != nil {
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
	l.colFor = -1
	l.rows = nil
	if l.setupDirect() {
		return nil
	}

	k, p := l.channels*l.kh*l.kw, l.outH*l.outW
	l.chunk = max(1, min(l.num, convColBudget/(k*p)))
	l.chunks = (l.num + l.chunk - 1) / l.chunk
	l.workers = max(1, min(l.threads(), l.chunks))
	l.gemmThreads = 1
	l.fwdParts, l.bwdParts = 1, 1
	if l.workers == 1 {
		l.gemmThreads = l.threads()
	} else {
		// Several parts per goroutine, so that one held back by another
		// process leaves little to wait for; in Backward, where every
		// part but the first sums its weight gradient in a buffer, no
		// more than those buffers' budget allows.
		l.fwdParts = min(l.chunks, 8*l.workers)
		wsize := k / l.group * l.numOutput
		l.bwdParts = max(l.workers, min(l.chunks, 4*l.workers, 1+convGradBudget/max(wsize, 1)))
	}
	cols := l.chunk * p
	if l.bias && len(l.ones) < cols {
		l.ones = make([]float32, cols)
		fillFloats(l.ones, 1)
	}
	l.keep = k*p*l.num <= convKeepBudget && !(l.oneByOne && l.chunk == 1)
	if l.keep {
		l.col = growFloats(l.col, k*p*l.num)
	}
	for len(l.scratch) < l.workers {
		l.scratch = append(l.scratch, &convScratch{})
	}
	for _, s := range l.scratch[:l.workers] {
		if !l.keep && (l.chunk > 1 || !l.oneByOne) {
			s.col = growFloats(s.col, k*cols)
		}
		if l.chunk > 1 {
			s.buf = growFloats(s.buf, l.numOutput*cols)
		}
		s.colChunk = -1
	}
	for len(l.grads) < l.bwdParts {
		l.grads = append(l.grads, &convGrads{})
	}
	for i, g := range l.grads[:l.bwdParts] {
		if i > 0 {
			// Part 0 adds its share to the weights' gradient directly.
			g.dw = growFloats(g.dw, k/l.group*l.numOutput)
		}
		g.db = growFloats(g.db, l.numOutput)
	}
	l.colFor = -1
	l.setupRows()
	return nil
}

// convScratch is one worker's buffers.
type convScratch struct {
	col      []float32       // the columns of a chunk (unless kept for all)
	buf      []float32       // [M, chunk·pixels]: output or top gradient of a chunk
	colChunk int             // first image of the chunk whose columns col holds, or -1
	top      []float32       // a chunk's output or its gradient in a fused pass (convFusion.chunkTop)
	pad      []float32       // the row convolution's padded image
	padFor   *kernel.RowConv // the plan pad was made for
}

// convGrads is one part of Backward's share of the parameter gradients.
type convGrads struct {
	dw      []float32 // parts but the first (and the first, firstOwnDW): the weight gradient
	db      []float32 // the bias gradient
	wroteDW bool      // dw holds a gradient
	// merged: the part added its weight gradient to the first part's
	// (mergeParts), which its target is, and its dw holds none.
	merged bool
	target []float32 // where the part adds its weight gradient
}

// copyDW sets dw to the part's weight gradient from value lo on, or to
// zero if it wrote none: the first part's share when it has a buffer of
// its own (firstOwnDW).
func (g *convGrads) copyDW(dw []float32, lo int) {
	if g.wroteDW {
		copy(dw, g.dw[lo:lo+len(dw)])
	} else {
		clear(dw)
	}
}

// ownFirstDW gives part 0 of a direct run on several goroutines that
// writes the weight gradient a buffer of its own (firstOwnDW): adding
// into the diff, it would write lines the other goroutines' adding and
// update of the last pass left in their cores' caches (benchmarks
// compare it off).
var ownFirstDW = true

// addRangesPer is how many ranges of values addPartGradsShared deals each
// goroutine: a goroutine done with its own takes the last range of the
// other's share, as the shares cost unequal time: each reads the buffers
// of the parts that the other goroutine ran from that core's cache (after
// mergeParts, LeNet's calling goroutine two of them, the other one).
const addRangesPer = 2

// shareGradAdds lets the direct path share the adding of its parts'
// weight gradients among threads (tests compare it off).
var shareGradAdds = true

// addPartGradsShared adds the gradients of the first parts parts as
// addPartGrads does, and those of the chained convolution's (its
// backward's parts) when l.chain is set, on workers goroutines: the bias
// gradients on the calling one, the weight gradients by ranges of values
// (addRangesPer a goroutine), each value's additions in part order. With
// fewer than sgdSplitMin weights in all, or one worker, the calling
// goroutine adds them all.
func (l *Convolution) addPartGradsShared(parts, workers int) {
	if !l.sharesGradAdds(workers) {
		l.addPartGrads(parts)
		if c := l.chain; c != nil {
			c.addPartGrads(c.direct.bwdParts)
		}
		return
	}
	l.addBiasGrads(parts)
	if c := l.chain; c != nil {
		c.addBiasGrads(c.direct.bwdParts)
	}
	ranges := workers * addRangesPer
	l.addParts, l.addRanges = parts, ranges
	if c := l.chain; c != nil {
		c.addParts, c.addRanges = c.direct.bwdParts, ranges
	}
	l.runner.run(workers, ranges, l.dAddFn)
	l.updated = l.updateDW != nil
	if c := l.chain; c != nil {
		c.updated = c.updateDW != nil
	}
}

// sharesGradAdds reports whether addPartGradsShared shares the adding
// of the weight gradients among workers goroutines.
func (l *Convolution) sharesGradAdds(workers int) bool {
	size := l.blobs[0].Count()
	if c := l.chain; c != nil {
		size += c.blobs[0].Count()
	}
	return workers >= 2 && size >= sgdSplitMin && shareGradAdds
}

// addGradsPart adds range q of l's weight gradients of addPartGradsShared
// (l.addParts parts, l.addRanges ranges) and, with updateDW, updates
// those weights on goroutine w.
func (l *Convolution) addGradsPart(w, q int) {
	l.addWeightGrads(l.addParts, q, l.addRanges)
	if l.updateDW != nil {
		lo, hi := gradRange(q, l.addRanges, l.blobs[0].Count())
		l.updateDW(w, lo, hi, nil)
	}
}

// addPartGradsPart adds range q of addPartGradsShared's weight gradients
// and, with updateDW, updates those weights on goroutine w while their
// gradient is in the cache.
func (l *Convolution) addPartGradsPart(w, q int) {
	l.addGradsPart(w, q)
	if c := l.chain; c != nil {
		c.addGradsPart(w, q)
	}
}

// updatesParam reports whether Backward can update parameter j itself:
// the weights, when their gradient is computed in one run (one bottom).
func (l *Convolution) updatesParam(j int) bool { return j == 0 && l.paramGrad(0) && l.oneBottom }

// setParamUpdate makes the next Backward calls update the weights with
// fn once their gradient is complete (nil: not); fn(w, lo, hi, nil)
// updates values [lo, hi) on goroutine w from the diff.
func (l *Convolution) setParamUpdate(fn func(w, lo, hi int, grad []float32)) { l.updateDW = fn }

// gradRange returns range q of n of size values, as addWeightGrads adds
// them: cut at multiples of 16, the last to the end.
func gradRange(q, n, size int) (lo, hi int) {
	lo, hi = span(q, n, size)
	lo, hi = lo&^15, hi&^15
	if q == n-1 {
		hi = size
	}
	return lo, hi
}

// addBiasGrad adds the bias gradient of n images' output gradient dy
// (from the first image's) to db: image by image, the sum of each
// channel's plane (kernel.SumRows: the same values as kernel.Sum plane by
// plane).
func (l *Convolution) addBiasGrad(db, dy []float32, n int) {
	for j := range n {
		kernel.SumRows(db[:l.numOutput], dy[j*l.outSize:(j+1)*l.outSize], l.outH*l.outW)
	}
}

// addBiasGrads adds the bias gradients of the first parts parts, in part
// order (addPartGrads).
func (l *Convolution) addBiasGrads(parts int) {
	if !l.wantB {
		return
	}
	db := l.blobs[1].DiffSlice()
	for _, g := range l.grads[:parts] {
		kernel.Add(db, db, g.db[:l.numOutput])
	}
}

// addWeightGrads adds range q of n of the weight gradients of parts 1,
// …, parts−1, in part order (addPartGrads).
func (l *Convolution) addWeightGrads(parts, q, n int) {
	dw := l.blobs[0].DiffSlice()
	lo, hi := gradRange(q, n, len(dw))
	if l.firstOwnDW {
		l.grads[0].copyDW(dw[lo:hi], lo)
	}
	for _, g := range l.grads[1:parts] {
		if g.wroteDW && !g.merged {
			kernel.Add(dw[lo:hi], dw[lo:hi], g.dw[lo:hi])
		}
	}
}

// partZeroDW returns the weights' gradient, into which part 0 of a
// Backward run adds its share, cleared first when the run writes the
// gradient (zeroDW).
func (l *Convolution) partZeroDW() []float32 {
	dw := l.blobs[0].DiffSlice()
	if l.zeroDW {
		clear(dw)
	}
	return dw
}

// writesParamDiff reports whether Backward can write the gradient of
// parameter j instead of adding to it: the weights, when their gradient
// is computed. The part that adds into the diff clears it first, inside
// the run, where the solver would clear it in a run of its own before;
// the sums are the same.
func (l *Convolution) writesParamDiff(j int) bool { return j == 0 && l.paramGrad(0) }

// setWriteParamDiff makes the next Backward calls write the weight
// gradient (on) or add to it (off, the default).
func (l *Convolution) setWriteParamDiff(on bool) { l.writeDW = on }

// addPartGrads adds the gradients of Backward's first parts parts into
// the parameters' gradients, in part order: every part's bias gradient,
// and the weight gradient of every part but the first (the first adds
// into the parameter's gradient itself).
func (l *Convolution) addPartGrads(parts int) {
	m := l.numOutput
	for p, g := range l.grads[:parts] {
		if l.wantB {
			kernel.Add(l.blobs[1].DiffSlice(), l.blobs[1].DiffSlice(), g.db[:m])
		}
		switch dw := l.blobs[0].DiffSlice(); {
		case p == 0 && l.firstOwnDW:
			g.copyDW(dw, 0)
		case p > 0 && g.wroteDW && !g.merged:
			kernel.Add(dw, dw, g.dw)
		}
	}
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
	if l.direct != nil {
		l.forwardDirect(bottom, top)
		return nil
	}
	if l.rows != nil {
		l.rows.Pack(l.blobs[0].DataSlice())
	}
	for i := range bottom {
		l.x, l.y = bottom[i].DataSlice(), top[i].DataSlice()
		l.runner.run(l.workers, l.fwdParts, l.fwdFn)
	}
	l.x, l.y = nil, nil
	// The workers' buffers keep the last bottom's columns (none on the
	// row convolution).
	l.colFor = len(bottom) - 1
	if l.rows != nil {
		l.colFor = -1
	}
	return nil
}

// forwardWorker convolves the chunks of part p as goroutine w.
func (l *Convolution) forwardWorker(w, p int) {
	s := l.scratch[w]
	lo, hi := span(p, l.fwdParts, l.chunks)
	for c := lo; c < hi; c++ {
		start := c * l.chunk
		nb := min(l.chunk, l.num-start)
		l.forwardChunk(s, start, nb)
		s.colChunk = start
		if f := l.fused; f != nil {
			f.forwardBlock(start, nb, false, false, l.chunkOut(s, start, nb))
		}
	}
}

// chunkOut returns where the chunk of nb images starting at image start
// has its output: its part of the top, or, in a fused pass that keeps it
// there (convFusion.chunkTop), the worker's buffer.
func (l *Convolution) chunkOut(s *convScratch, start, nb int) []float32 {
	if f := l.fused; f != nil && f.chunkTop {
		return s.top[:nb*l.outSize]
	}
	return l.y[start*l.outSize : (start+nb)*l.outSize]
}

// chunkGrad returns where the chunk of nb images starting at image start
// has its output gradient: its part of the top's gradient, or, in a
// fused pass that keeps it there (convFusion.chunkGrad), the worker's
// buffer.
func (l *Convolution) chunkGrad(s *convScratch, start, nb int) []float32 {
	if f := l.fused; f != nil && f.chunkGrad {
		return s.top[:nb*l.outSize]
	}
	return l.dy[start*l.outSize : (start+nb)*l.outSize]
}

// growChunkBuffers sizes the workers' buffers for a chunk's output, or
// on the direct path a block's output gradient.
func (l *Convolution) growChunkBuffers() {
	if d := l.direct; d != nil {
		for len(d.dyBuf) < d.workers {
			d.dyBuf = append(d.dyBuf, nil)
		}
		for w := range d.workers {
			d.dyBuf[w] = growFloats(d.dyBuf[w], d.plan.Lanes()*l.outSize)
		}
		return
	}
	for _, s := range l.scratch[:l.workers] {
		s.top = growFloats(s.top, l.chunk*l.outSize)
	}
}

// forwardChunk convolves the chunk of nb images starting at image start
// (where chunkOut says).
func (l *Convolution) forwardChunk(s *convScratch, start, nb int) {
	if l.rows != nil {
		l.forwardRows(s, start, nb)
		return
	}
	m, mg := l.numOutput, l.numOutput/l.group
	kg := l.channels / l.group * l.kh * l.kw
	p := l.outH * l.outW
	cols := nb * p
	w := l.blobs[0].DataSlice()
	y := l.chunkOut(s, start, nb)
	col := l.columns(s, l.x[start*l.imgSize:(start+nb)*l.imgSize], start, nb)
	out := s.buf
	if l.chunk == 1 {
		out = y
	}
	for g := range l.group {
		kernel.SgemmParallel(l.gemmThreads, false, false, mg, cols, kg,
			1, w[g*mg*kg:], kg, col[g*kg*cols:], cols, 0, out[g*mg*cols:], cols)
	}
	if l.bias {
		// As Caffe, the bias is added to the product: out += bias·1ᵀ.
		bias, ones := l.blobs[1].DataSlice(), l.ones[:cols]
		for j := range m {
			kernel.Axpy(bias[j], ones, out[j*cols:(j+1)*cols])
		}
	}
	if l.chunk > 1 {
		// out is [M, images·pixels]; the top is [images, M, pixels].
		for j := range nb {
			kernel.CopyRows(y[j*l.outSize:], p, out[j*p:], cols, m, p)
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
		l.im2col(img[j*l.imgSize:(j+1)*l.imgSize], col[j*p:], nb*p)
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
// bottoms' gradients. Each chunk adds dY·colsᵀ to the weight gradient:
// the chunks are cut into parts, the first of which adds into the weights'
// gradient itself while the others sum their share in their own buffers,
// which are then added in order, so that the result does not depend on
// which goroutine ran which part.
func (l *Convolution) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	l.zeroDW = l.writeDW && l.paramGrad(0)
	l.updated = false
	l.backward(top, propagateDown, bottom)
	l.zeroDW = false
	l.finishUpdate()
}

// finishUpdate updates the weights with updateDW, if set, unless the
// parts that added the gradients did.
func (l *Convolution) finishUpdate() {
	if l.updateDW != nil && !l.updated {
		l.updateDW(0, 0, l.blobs[0].Count(), nil)
	}
	l.updated = false
}

// backward is Backward's work on the path the layer takes.
func (l *Convolution) backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if l.direct != nil {
		l.backwardDirect(l.direct, top, propagateDown, bottom)
		return
	}
	if l.backwardRows(top, propagateDown, bottom) {
		return
	}
	if l.wgrad != nil && !slices.Contains(propagateDown[:min(len(top), len(propagateDown))], true) {
		l.backwardDirect(l.wgrad, top, propagateDown, bottom)
		return
	}
	l.wantW = l.paramGrad(0)
	l.wantB = l.bias && l.paramGrad(1)
	// The last bottom first: its columns may still be in the buffers.
	for i := len(top) - 1; i >= 0; i-- {
		l.wantDown = i < len(propagateDown) && propagateDown[i]
		if !l.wantW && !l.wantB && !l.wantDown {
			continue
		}
		l.haveCols = l.colFor == i
		l.dy, l.x, l.dx = top[i].DiffSlice(), bottom[i].DataSlice(), bottom[i].DiffSlice()
		l.runner.run(l.workers, l.bwdParts, l.bwdFn)
		l.zeroDW = false
		l.colFor = -1
		l.addPartGrads(l.bwdParts)
	}
	for _, s := range l.scratch[:l.workers] {
		s.colChunk = -1
	}
	l.x, l.dx, l.dy = nil, nil, nil
	l.colFor = -1
}

// backwardWorker handles the chunks of part p as goroutine w, the last
// first (its columns may still be in a worker's buffer).
func (l *Convolution) backwardWorker(w, p int) {
	s, g := l.scratch[w], l.grads[p]
	clear(g.db)
	g.wroteDW = false
	dw := g.dw
	if p == 0 {
		dw = l.partZeroDW()
	}
	lo, hi := span(p, l.bwdParts, l.chunks)
	for c := hi - 1; c >= lo; c-- {
		start := c * l.chunk
		nb := min(l.chunk, l.num-start)
		dyc := l.chunkGrad(s, start, nb)
		if f := l.fused; f != nil {
			f.backwardBlock(w, start, nb, false, dyc)
		}
		l.backwardChunk(s, g, dw, p == 0, start, nb, dyc)
	}
}

// backwardChunk adds the chunk's share of the gradients, from its output
// gradient dyc: the weight gradient into dw (adding to what it holds if
// accumulate or once the part has written it), the bias gradient into the
// part's db (pg).
func (l *Convolution) backwardChunk(s *convScratch, pg *convGrads, dw []float32, accumulate bool, start, nb int, dyc []float32) {
	m, mg := l.numOutput, l.numOutput/l.group
	kg := l.channels / l.group * l.kh * l.kw
	p := l.outH * l.outW
	cols := nb * p
	if l.wantB {
		l.addBiasGrad(pg.db, dyc, nb)
	}
	if !l.wantW && !l.wantDown {
		return
	}
	// dY of the chunk: [M, images·pixels].
	g := dyc
	if nb > 1 {
		g = s.buf[:m*cols]
		for j := range nb {
			kernel.CopyRows(g[j*p:], cols, dyc[j*l.outSize:], p, m, p)
		}
	}
	if l.wantW {
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
		if !accumulate && !pg.wroteDW {
			beta = 0
		}
		for gr := range l.group {
			kernel.SgemmParallel(l.gemmThreads, false, true, mg, kg, cols,
				1, g[gr*mg*cols:], cols, col[gr*kg*cols:], cols, beta, dw[gr*mg*kg:], kg)
		}
		pg.wroteDW = true
	}
	// The worker's column buffer will hold other values.
	s.colChunk = -1
	if !l.wantDown {
		return
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
		l.col2im(col[j*p:], cols, img[j*l.imgSize:(j+1)*l.imgSize])
	}
}

// im2col writes the columns of one image into col, whose rows (one per
// channel and kernel offset) are ld apart; each row gets outH·outW
// values. Positions in the padding read as zero.
func (l *Convolution) im2col(img, col []float32, ld int) {
	kernel.Im2colLd(img, l.channels, l.height, l.width, l.kh, l.kw, l.padH, l.padW,
		l.strideH, l.strideW, l.dilH, l.dilW, col, ld)
}

// col2im sets img to zero and adds the columns of one image (rows ld
// apart, as im2col wrote them) back into the positions they were read
// from.
func (l *Convolution) col2im(col []float32, ld int, img []float32) {
	kernel.Col2imLd(col, ld, l.channels, l.height, l.width, l.kh, l.kw, l.padH, l.padW,
		l.strideH, l.strideW, l.dilH, l.dilW, img)
}
