package caffe

import (
	"sync/atomic"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// convDirect switches the direct convolution (kernel.DirectConv) on for
// the convolutions it takes; a variable so that tests and benchmarks can
// compare it with the column products.
var convDirect = true

// convDirectTail switches the direct convolution of a small last block
// (kernel.DirectTail) on; a variable so that tests and benchmarks can
// compare it with the column products.
var convDirectTail = true

// offerWeightGrads lets the parts of a chained backward run offer their
// last block's weight gradient to a goroutine without parts
// (Convolution.offerWeights; tests and benchmarks compare it off).
var offerWeightGrads = true

// mergeParts lets a goroutine that runs a backward run's parts 0, 1, …, k
// one after the other add the weight gradients of parts 1, …, k into part
// 0's (tests and benchmarks compare it off): the same additions in the
// same order as adding each part's buffer after the run, which then adds
// one buffer less per such part, and the part clears none.
var mergeParts = true

// pooledBiasInTiles lets a fused group's block pooled in lanes whose
// output gradient only the bias gradient reads (tops not kept: LeNet's
// conv1 and conv2, CIFAR-10 quick's conv2 and conv3) sum that gradient's
// planes from the weight gradient's tiles (biasInTiles) or from the
// layout the input and weight gradients read (biasInLoad), instead of
// writing it to a buffer in Caffe's layout and summing that; the same
// bits. A variable so that benchmarks can compare the two.
var pooledBiasInTiles = true

// chainWeightsEarly lets a chained backward run's parts compute the
// weight gradient they offered before the chained convolution's part
// (chainBackwardWorker; tests and benchmarks compare it off, the weight
// gradient after the chained part).
var chainWeightsEarly = true

// chainAdds lets a chained backward run add its parts' weight gradients
// of the first convolution in the run itself, after its parts
// (chainTask), where a run of its own follows it otherwise
// (addPartGradsShared; tests and benchmarks compare it off).
var chainAdds = true

// chainTakeRanges lets a goroutine of a chained backward run that waits
// for every part run meanwhile the ranges of the first convolution's
// adding that no goroutine has begun (waitChainParts; tests and
// benchmarks compare it off).
var chainTakeRanges = true

// sharePieces lets a chained forward run's goroutine left without parts
// share the pooled convolution of a block that another goroutine runs
// (forwardPieces; tests and benchmarks compare it off).
var sharePieces = true

// piecesHelped counts the offered blocks (forwardPieces) of which a
// goroutine that took the offer computed pieces (tests).
var piecesHelped atomic.Int64

// convOffer is a weight gradient a goroutine's part offered: the slot
// (parallelRunner.offer) and the part.
type convOffer struct {
	slot, p int
	on      bool
}

// convDirectState is a Convolution's direct path: the plan, and one
// interleaved input block and one scratch per worker.
// The batch is cut into blocks of plan.Lanes() images; Forward runs a
// block per part, Backward cuts the blocks into parts, each adding its
// share of the weight gradient to its own buffer (the first to the
// weights' gradient), which are added in order, as on the column path.
//
// A last block of at most half the lanes (tail) runs apart, at a cost
// that follows its images, where a block of lanes costs as much as a
// full one (and a block of AVX2's 8 lanes as much as one of AVX-512's
// 16): on the lanes of the images' strips (tailPlan, a
// kernel.DirectTail), or on the column products where the kernels have
// no such plan (as on the column path). CIFAR-10's batch of 100 costs
// six blocks and a quarter of one, not seven blocks.
type convDirectState struct {
	plan     *kernel.DirectConv
	blocks   *kernel.DirectBlocks
	scratch  []*kernel.DirectScratch
	nblocks  int
	tail     bool
	tailPlan *kernel.DirectTail // the tail's plan, or nil for the column products
	workers  int
	bwdParts int
	// The max pooling of the output on the interleaved blocks, for a
	// fused group (net_fuse.go): the plan, the pooling's geometry it was
	// made for, and each block's interleaved argmax mask, maskSize
	// int32s apart.
	pool     *kernel.DirectPool
	poolGeom directPoolGeom
	masks    []int32
	maskSize int
	// dyBuf: each worker's buffer for a block's output gradient, which
	// a fused group may keep out of the top (convFusion.chunkGrad).
	dyBuf [][]float32
	// pieces: each block's pieces of its pooled convolution that a
	// chained forward run shares (forwardPieces).
	pieces []blockPieces
}

// blockPieces is the pieces of a block's pooled convolution that the
// goroutines of a chained forward run share (forwardPieces): next<<16 |
// end, the pieces [next, end) that no goroutine has claimed, alone in
// its cache line, as the two goroutines claim pieces of different blocks
// at once.
type blockPieces struct {
	v atomic.Uint32
	_ [60]byte
}

// take claims pieces [lo, hi): from the front, the first unclaimed
// one, or the band of band pieces from there when it is whole and
// unclaimed (front), else the last.
func (b *blockPieces) take(front bool, band int) (lo, hi int, ok bool) {
	for {
		s := b.v.Load()
		next, end := int(s>>16), int(s&0xffff)
		switch {
		case next >= end:
			return 0, 0, false
		case !front:
			if b.v.CompareAndSwap(s, s-1) {
				return end - 1, end, true
			}
		default:
			k := 1
			if next%band == 0 && next+band <= end {
				k = band
			}
			if b.v.CompareAndSwap(s, s+uint32(k)<<16) {
				return next, next + k, true
			}
		}
	}
}

// left returns the pieces no goroutine has claimed.
func (b *blockPieces) left() int {
	s := b.v.Load()
	return max(0, int(s&0xffff)-int(s>>16))
}

// setupDirect plans the direct convolution when it applies: stride 1, no
// dilation, a kernel larger than 1×1 (a 1×1 convolution is a plain
// product), and kernels that have it. It reports whether the layer uses
// it.
//
// A layer with few input channels and many outputs per group (CIFAR-10
// quick's first: 3 channels in, 32 out) runs forward and its input's
// gradient on the column path: its outputs are many for its work, and
// interleaving them and their gradients cost more than the column
// matrices (BenchmarkLayerConvPaths). Its weight gradient alone, when
// its input wants none (a net's first layer), is faster on the direct
// path, and runs there (wgrad).
func (l *Convolution) setupDirect() bool {
	fewIn := l.channels/l.group <= 4 && l.numOutput/l.group >= 32
	if !convDirect || l.strideH != 1 || l.strideW != 1 || l.dilH != 1 || l.dilW != 1 || l.kh*l.kw == 1 {
		l.direct, l.wgrad = nil, nil
		return false
	}
	if fewIn {
		l.wgrad = l.directState(l.wgrad, false)
		l.direct = nil
		return false
	}
	l.direct = l.directState(l.direct, true)
	l.wgrad = nil
	return l.direct != nil
}

// directState returns the state of the direct path for the layer's
// current shape, reusing d's plan when it fits, or nil when the kernels
// have no plan for the geometry; forward tells whether it runs Forward
// too (which needs input blocks).
func (l *Convolution) directState(d *convDirectState, forward bool) *convDirectState {
	if d == nil || !l.directFits() {
		plan := kernel.NewDirectConv(l.channels, l.height, l.width, l.numOutput, l.group, l.kh, l.kw, l.padH, l.padW)
		if plan == nil {
			return nil
		}
		d = &convDirectState{plan: plan}
		l.directGeom = [...]int{l.channels, l.height, l.width}
	}
	lanes := d.plan.Lanes()
	d.nblocks = (l.num + lanes - 1) / lanes
	d.workers = max(1, min(l.threads(), d.nblocks))
	if forward && (d.blocks == nil || d.blocks.Slots() < d.workers) {
		d.blocks = d.plan.NewBlocks(d.workers)
	}
	if forward && len(d.pieces) < d.nblocks {
		d.pieces = make([]blockPieces, d.nblocks)
	}
	for len(d.scratch) < d.workers {
		d.scratch = append(d.scratch, d.plan.NewScratch())
	}
	for len(l.offers) < d.workers {
		l.offers = append(l.offers, convOffer{})
	}
	for len(l.mergeNext) < d.workers {
		l.mergeNext = append(l.mergeNext, -1)
	}
	n := l.num % lanes
	d.tail = n > 0 && n <= lanes/2
	if !d.tail || !convDirectTail {
		d.tailPlan = nil
	} else if d.tailPlan == nil || d.tailPlan.Images() < n || d.tailPlan.Conv() != d.plan {
		d.tailPlan = d.plan.NewTail(n)
	}
	if d.tail && d.tailPlan == nil && forward {
		// The column path's chunks are set up here; a layer that runs
		// forward on the column path has them already.
		l.setupColTail(n)
	}
	d.bwdParts = 1
	if d.workers > 1 {
		// As on the column path: several parts per goroutine, within
		// the budget of the parts' weight-gradient buffers.
		wsize := l.channels / l.group * l.kh * l.kw * l.numOutput
		d.bwdParts = max(d.workers, min(d.nblocks, 4*d.workers, 1+convGradBudget/max(wsize, 1)))
	}
	for len(l.grads) < d.bwdParts {
		l.grads = append(l.grads, &convGrads{})
	}
	wsize := l.channels / l.group * l.kh * l.kw * l.numOutput
	for i, g := range l.grads[:d.bwdParts] {
		if i > 0 || d.workers > 1 {
			g.dw = growFloats(g.dw, wsize)
		}
		g.db = growFloats(g.db, l.numOutput)
	}
	return d
}

// setupColTail sets the column path up for one chunk of n images, the
// direct path's last block, in the first worker's buffers (one goroutine
// runs the block).
func (l *Convolution) setupColTail(n int) {
	k, p := l.channels*l.kh*l.kw, l.outH*l.outW
	l.chunk, l.keep, l.gemmThreads = n, false, 1
	if l.bias && len(l.ones) < n*p {
		l.ones = make([]float32, n*p)
		fillFloats(l.ones, 1)
	}
	if len(l.scratch) == 0 {
		l.scratch = append(l.scratch, &convScratch{})
	}
	s := l.scratch[0]
	s.col = growFloats(s.col, k*n*p)
	s.buf = growFloats(s.buf, l.numOutput*n*p)
	s.colChunk = -1
}

// setupDirectPool plans the pooling p of the output on the interleaved
// blocks (kernel.DirectConv.NewPool) and reports whether the fused group
// can use it: a MAX or AVE pooling without padding whose windows start
// inside the output, of the convolution's values or of their in-place
// rectification (a ReLU of slope >= 0 between them), on the direct path.
// A last block that runs apart (tail) is rectified and pooled in Caffe's
// layout, as without the interleaved pooling.
func (l *Convolution) setupDirectPool(f *convFusion) bool {
	d, p := l.direct, f.pool
	if d == nil || p == nil || p.padH != 0 || p.padW != 0 ||
		(p.method != caffepb.PoolingParameter_MAX && p.method != caffepb.PoolingParameter_AVE) {
		return false
	}
	geom := directPoolGeom{p.method, p.kh, p.kw, p.strideH, p.strideW, p.outH, p.outW, f.relu != nil, 0}
	if f.relu != nil {
		geom.slope = f.relu.slope
	}
	if d.poolGeom != geom || d.pool == nil {
		// (A new plan comes with a new state.)
		d.poolGeom = geom
		d.pool = d.plan.NewPool(geom.method == caffepb.PoolingParameter_AVE, p.kh, p.kw, p.strideH, p.strideW, p.outH, p.outW, geom.relu, geom.slope)
	}
	if d.pool == nil {
		return false
	}
	d.maskSize = d.pool.MaskSize()
	if need := d.nblocks * d.maskSize; len(d.masks) < need {
		d.masks = make([]int32, need)
	}
	return true
}

// prepPieces returns the pieces that prepare cuts the packing of the
// weights for the direct path's next Forward (backward false) or
// BackwardData into: no more than most, nor than the plan's tiles
// (passPreparer).
func (l *Convolution) prepPieces(backward bool, most int) int {
	d, b := l.direct, btoi(backward)
	pieces := 1
	if d != nil {
		pieces = min(most, d.plan.PackParts(backward))
	}
	l.prepParts[b] = pieces
	l.prepLeft[b].Store(int32(pieces))
	return pieces
}

// prepare packs piece p of the weights for the direct path's next
// Forward (backward false) or BackwardData, ahead of the pass
// (passPreparer); the last piece done marks the packing as ready. The
// pass packs them itself when the plan it runs is another one, or when a
// piece failed (unprepare).
func (l *Convolution) prepare(backward bool, p int) {
	d, b := l.direct, btoi(backward)
	if d == nil {
		return
	}
	if backward {
		d.plan.PackBackwardPart(l.blobs[0].DataSlice(), p, l.prepParts[b])
	} else {
		d.plan.PackForwardPart(l.blobs[0].DataSlice(), p, l.prepParts[b])
	}
	if l.prepLeft[b].Add(-1) != 0 {
		return
	}
	if backward {
		l.prepB = d.plan
	} else {
		l.prepF = d.plan
	}
}

// unprepare forgets the weights packed ahead for Forward (backward
// false) or BackwardData: their values may change before the next pass.
// A piece still to finish then leaves them unmarked.
func (l *Convolution) unprepare(backward bool) {
	if backward {
		l.prepB = nil
	} else {
		l.prepF = nil
	}
	l.prepLeft[btoi(backward)].Store(-1 << 30)
}

// directPoolGeom is what a pooling plan of the interleaved blocks was
// made for.
type directPoolGeom struct {
	method                               caffepb.PoolingParameter_PoolMethod
	kh, kw, strideH, strideW, outH, outW int
	relu                                 bool
	slope                                float32
}

// blockLanes reports whether block b of the fused pass pools on the
// interleaved blocks (not the column path's last block).
func (l *Convolution) blockLanes(b int) bool {
	f, d := l.fused, l.direct
	return f != nil && f.lanes && !(d.tail && b == d.nblocks-1)
}

// blockPool returns the pooling plan and the interleaved mask of block b.
func (d *convDirectState) blockPool(b int) (*kernel.DirectPool, []int32) {
	return d.pool, d.masks[b*d.maskSize : (b+1)*d.maskSize]
}

// writePoolMask writes the pooling's mask in its own layout from the
// blocks' interleaved masks, for a backward pass of the pooling alone.
func (l *Convolution) writePoolMask(p *Pooling) {
	d := l.direct
	lanes := d.plan.Lanes()
	size := p.channels * p.outH * p.outW
	for b := range d.nblocks {
		if d.tail && b == d.nblocks-1 {
			continue // pooled in Caffe's layout, its mask there
		}
		lo := b * lanes
		n := min(lanes, l.num-lo)
		pool, m := d.blockPool(b)
		pool.Mask(p.mask[lo*size:(lo+n)*size], m, n)
	}
}

// directFits reports whether the current plan was made for the input's
// geometry (the batch size may change without a new plan).
func (l *Convolution) directFits() bool {
	return l.directGeom == [...]int{l.channels, l.height, l.width}
}

// forwardDirect convolves every bottom into its top, a block of images
// per part.
func (l *Convolution) forwardDirect(bottom, top []*Blob) {
	d := l.direct
	if l.prepF != d.plan {
		d.plan.PackForward(l.blobs[0].DataSlice())
	}
	l.prepF = nil
	for i := range bottom {
		l.x, l.y = bottom[i].DataSlice(), top[i].DataSlice()
		l.runner.run(d.workers, d.nblocks, l.dFwdFn)
	}
	l.x, l.y = nil, nil
	// A last block on the column path leaves the last bottom's columns
	// in the first worker's buffer, for Backward.
	l.colFor = -1
	if d.tail {
		l.colFor = len(bottom) - 1
	}
}

// winograd reports whether the layer's direct plan runs its forward pass
// and input gradient on Winograd's transforms.
func (l *Convolution) winograd() bool {
	return l.direct != nil && l.direct.plan != nil && l.direct.plan.Winograd()
}

// forwardDirectChain runs forwardDirect for l (one bottom, one top) and
// for c, whose bottom is the top of the group l runs in, as one run over
// the blocks: a part convolves a block with l's group, then the same
// images with c's (Net.forwardChain). Each value is computed as when they
// run one after the other.
func (l *Convolution) forwardDirectChain(c *Convolution, bottom, top, cBottom, cTop *Blob) {
	l.chain = c
	if l.feedIn == nil {
		l.packForward()
		c.packForward()
	}
	l.x, l.y = bottom.DataSlice(), top.DataSlice()
	c.x, c.y = cBottom.DataSlice(), cTop.DataSlice()
	d := l.direct
	if sharePieces {
		l.runner.helpFn, l.helpRun, c.helpRun = l.dPieceFn, l, l
	}
	l.runner.run(d.workers, d.nblocks, l.dChainFn)
	l.runner.helpFn, l.helpRun, c.helpRun = nil, nil, nil
	l.chain = nil
	for _, k := range [...]*Convolution{l, c} {
		k.x, k.y = nil, nil
		k.colFor = -1
		if k.direct.tail {
			k.colFor = 0
		}
	}
}

// packForward packs the weights for the direct path's forward pass
// unless they were packed ahead.
func (l *Convolution) packForward() {
	if l.prepF != l.direct.plan {
		l.direct.plan.PackForward(l.blobs[0].DataSlice())
	}
	l.prepF = nil
}

// backwardDirectChain runs backwardDirect for l (one top, one bottom,
// down: its gradient wanted) and for c, whose top is the bottom of the
// group l runs in, as one run over the blocks: a part computes a block's
// gradients with l's group, then the same images' with c's
// (Net.backwardChain). Each value is computed as when they run one after
// the other; each convolution's parts add their weight gradients as
// before, after the run.
func (l *Convolution) backwardDirectChain(c *Convolution, top, bottom *Blob, down bool, cTop, cBottom *Blob, cDown bool) {
	for _, k := range [...]struct {
		l           *Convolution
		top, bottom *Blob
		down        bool
	}{{l, top, bottom, down}, {c, cTop, cBottom, cDown}} {
		d := k.l.direct
		k.l.dBwd = d
		k.l.wantW = k.l.paramGrad(0)
		k.l.prepareWeightGrad(d)
		k.l.wantB = k.l.bias && k.l.paramGrad(1)
		k.l.wantDown = k.down
		k.l.zeroDW = k.l.writeDW && k.l.wantW
		k.l.firstOwnDW = k.l.ownsFirstDW(d)
		k.l.updated = false
		if k.down && k.l.prepB != d.plan {
			d.plan.PackBackward(k.l.blobs[0].DataSlice())
		}
		k.l.haveCols = k.l.colFor == 0
		k.l.dy, k.l.x, k.l.dx = k.top.DiffSlice(), k.bottom.DataSlice(), k.bottom.DiffSlice()
	}
	l.chain = c
	if offerWeightGrads {
		l.runner.helpFn, l.helpRun, c.helpRun = l.dHelpFn, l, l
	}
	l.startMerges()
	c.startMerges()
	parts, workers := l.direct.bwdParts, l.direct.workers
	adds := 0
	if chainAdds && l.sharesGradAdds(workers) {
		adds = workers * addRangesPer
	}
	l.addParts, l.addRanges = parts, adds
	c.addParts, c.addRanges = c.direct.bwdParts, adds
	l.chainTasks = dealTasks(l.chainTasks, nil, workers, parts, adds, adds)
	if len(l.chainState) < parts {
		l.chainState = make([]atomic.Int32, parts)
	}
	for i := range parts {
		l.chainState[i].Store(taskTodo)
	}
	if len(l.rangeState) < adds {
		l.rangeState = make([]atomic.Int32, adds)
	}
	for q := range adds {
		l.rangeState[q].Store(taskTodo)
	}
	l.weightsDone.Store(0)
	l.runner.run(workers, len(l.chainTasks), l.dChainTaskFn)
	l.runner.helpFn, l.helpRun, c.helpRun = nil, nil, nil
	l.zeroDW, c.zeroDW = false, false
	if adds > 0 {
		l.addBiasGrads(parts)
		c.addBiasGrads(c.direct.bwdParts)
		l.updated, c.updated = l.updateDW != nil, c.updateDW != nil
	} else {
		l.addPartGradsShared(parts, workers)
	}
	l.firstOwnDW, c.firstOwnDW = false, false
	l.chain = nil
	l.finishUpdate()
	c.finishUpdate()
	for _, k := range [...]*Convolution{l, c} {
		k.colFor = -1
		k.prepB = nil
		k.haveCols = false
		for _, s := range k.scratch {
			s.colChunk = -1
		}
		k.x, k.dx, k.dy, k.dBwd = nil, nil, nil, nil
	}
}

// ownsFirstDW reports whether part 0 of a backward run on d writes its
// weight gradient into its own buffer (firstOwnDW): when the run writes
// the gradient on several goroutines.
func (l *Convolution) ownsFirstDW(d *convDirectState) bool {
	return ownFirstDW && l.zeroDW && d.workers > 1 && d.bwdParts > 1 && len(l.grads[0].dw) == l.blobs[0].Count()
}

// chainTask runs task q of a chained backward run on goroutine w.
//
// A chained backward run (backwardDirectChain) has a task per part of
// the two convolutions' backward (chainBackwardWorker) and, when the
// parts' weight gradients are added on several goroutines
// (sharesGradAdds), a task per range of each convolution's adding and
// of the update that follows it (addGradsPart), each goroutine's share
// its parts first, then its ranges of the first convolution, then of the
// chained one (dealTasks: part p as p, range q of the first as −q−1, of
// the chained one as −adds−q−1): so the adding needs no run of its own,
// which every goroutine would wait for, and a goroutine done with its
// parts before the other takes ranges of the other's share instead of
// waiting for it. A range of the first convolution waits only for every
// part's weight gradient of it (waitChainParts), which a part computes
// before its chained part (chainWeightsEarly): a goroutine done first
// adds and updates while the other still computes its last chained part.
//
// A goroutine waiting for every part before a range of the chained
// convolution (one that took its share's ranges of the first while the
// other still computes its last part) runs meanwhile the first's ranges
// that no goroutine has begun (rangeState).
func (l *Convolution) chainTask(w, q int) {
	t := l.chainTasks[q]
	if t >= 0 {
		runTask(&l.chainState[t], w, t, l.dBwdChainFn)
		return
	}
	if r := -t - 1; r < l.addRanges {
		l.waitChainParts(w, false)
		runTask(&l.rangeState[r], w, r, l.dRangeFn)
		return
	}
	l.waitChainParts(w, true)
	l.chain.addGradsPart(w, -t-1-l.addRanges)
}

// waitChainParts returns once every part of the chained backward run is
// done (all) or has completed l's weight gradient, running on goroutine
// w the parts that no goroutine has begun, and meanwhile the weight
// gradients the others' parts offer and, waiting for every part, the
// ranges of l's adding that no goroutine has begun once they can run.
func (l *Convolution) waitChainParts(w int, all bool) {
	states := l.chainState[:l.addParts]
	for i := range states {
		runTask(&states[i], w, i, l.dBwdChainFn)
	}
	gen := uint32(l.runner.meta.Load() >> 32)
	n := int32(len(states))
	for (all || l.weightsDone.Load() < n) && !tasksDone(states) {
		if chainTakeRanges && all && l.weightsDone.Load() == n {
			for q := range l.rangeState[:l.addRanges] {
				runTask(&l.rangeState[q], w, q, l.dRangeFn)
			}
		}
		if !l.runner.takeHelp(gen, w, -1) {
			kernel.SpinYield()
		}
	}
}

// tasksDone reports whether every task of states is done.
func tasksDone(states []atomic.Int32) bool {
	for i := range states {
		if states[i].Load() != taskDone {
			return false
		}
	}
	return true
}

// chainBackwardWorker computes part p of l's backward, then of its
// chained convolution's, as goroutine w. The weight gradient l's part
// offered (offerWeights) is computed right after the input gradient,
// while the block's output gradient is in its core's cache, unless
// another goroutine took it meanwhile, and before the chained part
// (chainWeightsEarly).
func (l *Convolution) chainBackwardWorker(w, p int) {
	l.directBackwardPart(w, p)
	if chainWeightsEarly {
		l.endOffer(w)
		l.weightsDone.Add(1)
	}
	l.chain.directBackwardPart(w, p)
	if !chainWeightsEarly {
		l.endOffer(w)
		l.weightsDone.Add(1)
	}
	l.chain.endOffer(w)
	l.endPart(w, p)
	l.chain.endPart(w, p)
}

// chainForwardWorker convolves block p with l's group, then with its
// chained convolution's, as goroutine w.
func (l *Convolution) chainForwardWorker(w, p int) {
	if f := l.feedIn; f != nil {
		if w == 0 {
			defer f.unblock()
		}
		f.through(p)
		f.packed(l, 0, w)
		l.directForwardWorker(w, p)
		f.packed(l.chain, 1, w)
		l.chain.directForwardWorker(w, p)
		return
	}
	l.directForwardWorker(w, p)
	l.chain.directForwardWorker(w, p)
}

// directForwardWorker convolves block p as goroutine w.
func (l *Convolution) directForwardWorker(w, p int) {
	d := l.direct
	lanes := d.plan.Lanes()
	lo := p * lanes
	n := min(lanes, l.num-lo)
	var bias []float32
	if l.bias {
		bias = l.blobs[1].DataSlice()
	}
	if d.tail && p == d.nblocks-1 {
		if d.tailPlan != nil {
			d.tailPlan.Forward(l.x[lo*l.imgSize:(lo+n)*l.imgSize], n, l.y[lo*l.outSize:(lo+n)*l.outSize], bias)
		} else {
			l.forwardChunk(l.scratch[0], lo, n)
			l.scratch[0].colChunk = lo
		}
		if f := l.fused; f != nil {
			f.forwardBlock(lo, n, false, false, l.y[lo*l.outSize:(lo+n)*l.outSize])
		}
		return
	}
	plan, blocks, slot, s := d.plan, d.blocks, w, d.scratch[w]
	x, y := l.x[lo*l.imgSize:(lo+n)*l.imgSize], l.y[lo*l.outSize:(lo+n)*l.outSize]
	lanesPool, rectified := l.blockLanes(p), false
	if lanesPool {
		// In a chained forward run, the chained convolution shares its
		// block's pieces (forwardPieces); the first does not: the
		// pieces another goroutine took would leave their pooled values
		// in the other core's cache, where this goroutine's chained
		// part reads them.
		y, py, pool, mask := l.pooledBlock(p, lo, n)
		if pool.Pieces() > 1 && pool.Pieces() <= 0xffff && l.helpRun != nil && l != l.helpRun {
			l.forwardPieces(w, p, x, n, y, bias, py, pool, mask)
		} else {
			plan.ForwardPool(s, blocks, slot, x, n, y, bias, pool, py, mask)
		}
	} else if f := l.fused; f != nil && f.relu != nil && l.rows == nil {
		// The ReLU on each run of rows as it is stored.
		plan.ForwardReLU(s, blocks, slot, x, n, y, bias, f.relu.slope)
		rectified = true
	} else {
		plan.Forward(s, blocks, slot, x, n, y, bias)
	}
	if f := l.fused; f != nil {
		f.forwardBlock(lo, n, lanesPool, rectified, l.y[lo*l.outSize:(lo+n)*l.outSize])
	}
}

// pooledBlock returns where block p (n images from lo) of a fused
// group that pools on the interleaved blocks goes: the convolution's
// output (nil where the group skips it), the pooled output, the plan and
// the block's mask.
func (l *Convolution) pooledBlock(p, lo, n int) (y, py []float32, pool *kernel.DirectPool, mask []int32) {
	f := l.fused
	pool, mask = l.direct.blockPool(p)
	size := f.pool.channels * f.pool.outH * f.pool.outW
	if !f.skipTop {
		y = l.y[lo*l.outSize : (lo+n)*l.outSize]
	}
	return y, f.pool.y[lo*size : (lo+n)*size], pool, mask
}

// forwardPieces convolves and pools block p (n images x) as goroutine w,
// a band of pieces at a time (kernel.DirectPool.Pieces), from the first,
// sharing the pieces with a goroutine left without parts: once every
// part of the run is claimed, it offers the block
// (parallelRunner.offer), and a goroutine that takes the offer
// (helpPieces) computes pieces one by one from the last, reading the
// block from w's slot, until the two meet (this goroutine, too, takes
// them one by one once the offer is taken). The goroutine done first with
// its parts thus shares the last block of the other instead of waiting
// for it, whichever core is the slower. Each piece writes its own
// values, the same as ForwardPool's.
func (l *Convolution) forwardPieces(w, p int, x []float32, n int, y, bias, py []float32, pool *kernel.DirectPool, mask []int32) {
	d, r := l.direct, &l.helpRun.runner
	d.plan.LoadInput(d.blocks, w, x, n)
	st := &d.pieces[p]
	st.v.Store(uint32(pool.Pieces()))
	k := -1
	if r.claimed() {
		k = r.offer(p<<9 | btoi(l != l.helpRun)<<8 | w)
	}
	for {
		if helpForced && k >= 0 && 2*st.left() <= pool.Pieces() {
			break // (tests: the rest to the goroutine that takes the offer)
		}
		// A band at a time runs faster, but with the offer taken the
		// pieces go one by one, so that the two goroutines meet within
		// a piece.
		band := pool.BandPieces()
		if r.taken(k) {
			band = 1
		}
		lo, hi, ok := st.take(true, band)
		if !ok {
			break
		}
		d.plan.ForwardPoolPieces(d.scratch[w], d.blocks, w, n, y, bias, pool, py, mask, lo, hi)
	}
	// Untaken, the offer leaves no piece to run here.
	r.reclaim(w, k)
}

// helpPieces runs offered task a (forwardPieces) on goroutine w: the
// pieces of a block that the goroutine which offered it has not claimed,
// from the last.
func (l *Convolution) helpPieces(w, a int) {
	k := l
	if a>>8&1 != 0 {
		k = l.chain
	}
	k.helpBlock(w, a>>9, a&(1<<8-1))
}

// helpBlock computes as goroutine w the unclaimed pieces of block p,
// loaded in goroutine owner's slot, from the last.
func (l *Convolution) helpBlock(w, p, owner int) {
	d := l.direct
	lo := p * d.plan.Lanes()
	n := min(d.plan.Lanes(), l.num-lo)
	var bias []float32
	if l.bias {
		bias = l.blobs[1].DataSlice()
	}
	y, py, pool, mask := l.pooledBlock(p, lo, n)
	st := &d.pieces[p]
	for k := 0; ; k++ {
		lo, hi, ok := st.take(false, 1)
		if !ok {
			if k > 0 {
				piecesHelped.Add(1)
			}
			return
		}
		d.plan.ForwardPoolPieces(d.scratch[w], d.blocks, owner, n, y, bias, pool, py, mask, lo, hi)
	}
}

// prepareWeightGrad makes the weight gradient's buffers in every
// goroutine's scratch of d (kernel.DirectConv.PrepareWeightGrad) when
// the weights want a gradient: a goroutine makes them at its first weight
// gradient otherwise, which, where the other goroutines took every block
// until then, fell in the middle of training (an allocation in an
// iteration of TestTrainNoAllocs, now and then, on two threads).
func (l *Convolution) prepareWeightGrad(d *convDirectState) {
	if !l.wantW {
		return
	}
	for _, s := range d.scratch[:d.workers] {
		d.plan.PrepareWeightGrad(s, d.pool)
	}
}

// backwardDirect computes the gradients on the direct path of d.
func (l *Convolution) backwardDirect(d *convDirectState, top []*Blob, propagateDown []bool, bottom []*Blob) {
	l.dBwd = d
	l.wantW = l.paramGrad(0)
	l.wantB = l.bias && l.paramGrad(1)
	l.prepareWeightGrad(d)
	packed := false
	for i := len(top) - 1; i >= 0; i-- {
		l.wantDown = i < len(propagateDown) && propagateDown[i]
		if !l.wantW && !l.wantB && !l.wantDown {
			continue
		}
		if l.wantDown && !packed {
			if l.prepB != d.plan {
				d.plan.PackBackward(l.blobs[0].DataSlice())
			}
			packed = true
		}
		// A column tail reuses the columns Forward built for this
		// bottom (the last one), if the buffer still holds them.
		l.haveCols = l.colFor == i
		l.dy, l.x, l.dx = top[i].DiffSlice(), bottom[i].DataSlice(), bottom[i].DiffSlice()
		l.firstOwnDW = l.ownsFirstDW(d)
		l.startMerges()
		l.runner.run(d.workers, d.bwdParts, l.dBwdFn)
		l.zeroDW = false
		l.colFor = -1
		l.addPartGradsShared(d.bwdParts, d.workers)
		l.firstOwnDW = false
	}
	l.prepB = nil
	l.colFor, l.haveCols = -1, false
	for _, s := range l.scratch {
		s.colChunk = -1
	}
	l.x, l.dx, l.dy, l.dBwd = nil, nil, nil, nil
}

// directBackwardWorker handles the blocks of part p as goroutine w
// (directBackwardPart).
func (l *Convolution) directBackwardWorker(w, p int) {
	l.directBackwardPart(w, p)
	l.endOffer(w)
	l.endPart(w, p)
}

// directBackwardPart handles the blocks of part p as goroutine w, one
// after the other: the bias gradient, the input gradient, and the weight
// gradient, which the part adds to its buffer (part 0 to the weights'
// gradient). Where it computes both the input and the weight gradient, a
// block's output gradient is read once for the bias gradient and the
// interleaved layouts of both (kernel.DirectConv.LoadGradTiles). The
// last block's weight gradient, once its output gradient is loaded, may
// be offered to another goroutine (offerWeights); endOffer ends it.
func (l *Convolution) directBackwardPart(w, p int) {
	d := l.dBwd
	g := l.grads[p]
	clear(g.db)
	g.wroteDW, g.merged = false, false
	dw := g.dw
	switch {
	case p == 0 && !l.firstOwnDW:
		dw = l.partZeroDW()
	case p > 0 && l.wantW && w < len(l.mergeNext) && l.mergeNext[w] == p && l.partBlocks(p) == 1:
		// Parts 0, …, p−1 ran on this goroutine, in order, into part
		// 0's gradient: add to it (one block: the same additions as
		// adding a buffer holding its gradient alone).
		dw, g.merged = l.grads[0].target, true
	case l.wantW:
		clear(dw)
	}
	g.target = dw
	lanes := d.plan.Lanes()
	lo, hi := span(p, d.bwdParts, d.nblocks)
	for b := lo; b < hi; b++ {
		first := b * lanes
		n := min(lanes, l.num-first)
		// A block whose input and weight gradients come from one pass
		// over its output gradient (LoadGradTiles) takes the gradient of
		// a fused group's ReLU alone in that pass too.
		tail := d.tail && b == d.nblocks-1
		sweep := !tail && !l.blockLanes(b) && l.wantDown && l.wantW
		var ry []float32
		var slope float32
		if f := l.fused; f != nil {
			if sweep && f.pool == nil && f.relu != nil && !f.reluDone() {
				ry, slope = f.y[first*l.outSize:(first+n)*l.outSize], f.relu.slope
			} else {
				f.backwardBlock(w, first, n, l.blockLanes(b), l.dy[first*l.outSize:(first+n)*l.outSize])
			}
		}
		offer := b == hi-1 && l.wantDown && l.wantW
		if tail && d.tailPlan != nil {
			l.tailBackward(w, p, g, dw, first, n, offer)
			continue
		}
		if tail {
			for c := first; c < first+n; c += l.chunk {
				nb := min(l.chunk, first+n-c)
				l.backwardChunk(l.scratch[0], g, dw, true, c, nb, l.dy[c*l.outSize:(c+nb)*l.outSize])
			}
			continue
		}
		dy := l.dy[first*l.outSize : (first+n)*l.outSize]
		if l.blockLanes(b) {
			l.directBackwardPooled(w, p, g, dw, b, first, n, offer)
			continue
		}
		plan, s := d.plan, d.scratch[w]
		if sweep {
			// One pass over the output gradient for the ReLU's gradient,
			// the input gradient's layout, the weight gradient's and the
			// bias gradient.
			var db []float32
			if l.wantB {
				db = g.db
			}
			plan.LoadGradTiles(s, dy, n, db, ry, slope)
			offered := offer && l.offerWeights(w, p)
			plan.BackwardData(s, l.dx[first*l.imgSize:(first+n)*l.imgSize], n)
			if !offered {
				l.blockWeights(w, g, dw, b, first, n)
			}
			continue
		}
		if l.wantB {
			l.addBiasGrad(g.db, dy, n)
		}
		if !l.wantW && !l.wantDown {
			continue
		}
		if l.wantDown {
			plan.LoadGrad(s, dy, n)
			plan.BackwardData(s, l.dx[first*l.imgSize:(first+n)*l.imgSize], n)
		}
		if l.wantW {
			plan.WeightGrad(s, l.x[first*l.imgSize:(first+n)*l.imgSize], dy, n, dw)
			g.wroteDW = true
		}
	}
}

// directBackwardPooled is directBackwardWorker's work on block b (images
// [first, first+n)) of a fused group whose pooling ran on the interleaved
// blocks: the pooling's gradient is routed through the block's mask into
// the interleaved layouts of the input and weight gradients and into the
// output gradient, then come the bias gradient, each as on the unfused
// path.
func (l *Convolution) directBackwardPooled(w, p int, g *convGrads, dw []float32, b, first, n int, offer bool) {
	d := l.direct
	plan, s := d.plan, d.scratch[w]
	pool, mask := d.blockPool(b)
	dy := l.pooledGrad(w, first, n)
	inTiles, inLoad := l.biasInTiles(pool), l.biasInLoad(pool)
	if l.wantDown || !l.wantW || pool.General() {
		switch {
		case inLoad:
			plan.LoadGradPooledBias(s, pool, l.poolGrad(first, n), mask, n, g.db)
		case inTiles:
			// The weight gradient sums it (blockWeights).
			plan.LoadGradPooled(s, pool, l.poolGrad(first, n), mask, n, nil)
		default:
			plan.LoadGradPooled(s, pool, l.poolGrad(first, n), mask, n, dy)
		}
	}
	offered := offer && l.offerWeights(w, p)
	if l.wantDown {
		plan.BackwardData(s, l.dx[first*l.imgSize:(first+n)*l.imgSize], n)
	}
	if l.wantW && !offered {
		l.blockWeights(w, g, dw, b, first, n)
	}
	if l.wantB && !inTiles && !inLoad {
		l.addBiasGrad(g.db, dy, n)
	}
}

// biasInLoad reports whether a block pooled in lanes by pool, a plan of
// kernel.NewPool (AVE pooling, or a ReLU between the convolution and
// the pooling: CIFAR-10 quick's conv2 and conv3), takes its bias gradient
// from the layout LoadGradPooled leaves for the input and weight
// gradients (kernel.DirectConv.LoadGradPooledBias), the output gradient
// written nowhere else: its group keeps that gradient out of the top
// (convFusion.chunkGrad), so that only the bias gradient would read it.
// The sums are Sum's of each image's planes, as addBiasGrad's.
func (l *Convolution) biasInLoad(pool *kernel.DirectPool) bool {
	return pooledBiasInTiles && l.wantB && l.fused.chunkGrad && pool.General()
}

// biasInTiles reports whether a block pooled in lanes by pool takes its
// bias gradient from the weight gradient's tiles (blockWeights, by
// kernel.DirectConv.WeightGradPooledBias), its output gradient written
// nowhere else: its group keeps that gradient out of the top
// (convFusion.chunkGrad), so that only the bias gradient would read it,
// and the layer computes its weight gradient, whose pass unpools the
// pooling's gradient into the tiles anyway (LeNet's conv1 and conv2). The
// sums are Sum's of each image's planes, as addBiasGrad's.
func (l *Convolution) biasInTiles(pool *kernel.DirectPool) bool {
	return pooledBiasInTiles && l.wantW && l.fused.chunkGrad && !pool.General()
}

// tailBackward is directBackwardPart's work on the last block (images
// [first, first+n)) of part p on its own plan: the bias gradient, the
// input gradient and the weight gradient, which it adds to dw (offered
// to another goroutine if offer is set).
func (l *Convolution) tailBackward(w, p int, g *convGrads, dw []float32, first, n int, offer bool) {
	t := l.dBwd.tailPlan
	dy := l.dy[first*l.outSize : (first+n)*l.outSize]
	if l.wantB {
		l.addBiasGrad(g.db, dy, n)
	}
	if !l.wantW && !l.wantDown {
		return
	}
	t.LoadGrad(dy, n)
	offered := offer && l.offerWeights(w, p)
	if l.wantDown {
		t.BackwardData(l.dx[first*l.imgSize:(first+n)*l.imgSize], n)
	}
	if l.wantW && !offered {
		l.blockWeights(w, g, dw, l.dBwd.nblocks-1, first, n)
	}
}

// pooledGrad returns the output gradient of images [first, first+n) of
// a block pooled on the interleaved blocks: in the top's gradient, or in
// goroutine w's buffer (convFusion.chunkGrad).
func (l *Convolution) pooledGrad(w, first, n int) []float32 {
	if l.fused.chunkGrad {
		return l.direct.dyBuf[w][:n*l.outSize]
	}
	return l.dy[first*l.outSize : (first+n)*l.outSize]
}

// poolGrad returns the pooling's gradient of images [first, first+n) of
// a fused group.
func (l *Convolution) poolGrad(first, n int) []float32 {
	f := l.fused
	size := f.pool.channels * f.pool.outH * f.pool.outW
	return f.pool.y[first*size : (first+n)*size]
}

// blockWeights adds the weight gradient of block b (images [first,
// first+n)) to dw, its part's (g), from what goroutine w's scratch (or
// the tail's plan) holds once the block's output gradient is loaded, and
// the block's bias gradient to g.db where biasInTiles says.
func (l *Convolution) blockWeights(w int, g *convGrads, dw []float32, b, first, n int) {
	d := l.dBwd
	x := l.x[first*l.imgSize : (first+n)*l.imgSize]
	s := d.scratch[w]
	switch {
	case d.tail && b == d.nblocks-1:
		// The input Forward loaded is the tail plan's still, if this
		// is the state Forward ran on.
		if l.haveCols && d == l.direct {
			d.tailPlan.WeightGradLoaded(n, dw)
		} else {
			d.tailPlan.WeightGrad(x, n, dw)
		}
	case l.blockLanes(b):
		pool, mask := d.blockPool(b)
		if pool.General() {
			// The output gradient from the interleaved one
			// LoadGradPooled left in s.
			d.plan.WeightGradLoaded(s, x, n, dw)
			break
		}
		if l.biasInTiles(pool) {
			// Only the bias gradient would read the output gradient:
			// the sums of its planes from the tiles.
			var db []float32
			if l.wantB {
				db = g.db
			}
			d.plan.WeightGradPooledBias(s, x, pool, l.poolGrad(first, n), mask, n, db, dw)
			break
		}
		// The output gradient once: LoadGradPooled wrote it already.
		var out []float32
		if !l.wantDown {
			out = l.pooledGrad(w, first, n)
		}
		d.plan.WeightGradPooled(s, x, pool, l.poolGrad(first, n), mask, n, out, dw)
	default:
		// After LoadGradTiles.
		d.plan.WeightGradLoaded(s, x, n, dw)
	}
	g.wroteDW = true
}

// offerWeights offers the weight gradient of part p's last block, whose
// output gradient goroutine w's scratch holds, to the goroutines of the
// run without parts (parallelRunner.offer) and reports whether it did;
// endOffer ends it. Only a chained run's parts offer (l.helpRun).
func (l *Convolution) offerWeights(w, p int) bool {
	r := l.helpRun
	if r == nil || w >= 1<<8 || p >= 1<<20 || w >= len(l.offers) {
		return false
	}
	k := r.runner.offer(p<<9 | btoi(l != r)<<8 | w)
	if k < 0 {
		return false
	}
	l.offers[w] = convOffer{slot: k, p: p, on: true}
	return true
}

// endOffer ends the weight gradient goroutine w's part offered, if any:
// runs it unless another goroutine took it, else waits for that one.
func (l *Convolution) endOffer(w int) {
	if w >= len(l.offers) || !l.offers[w].on {
		return
	}
	o := l.offers[w]
	l.offers[w].on = false
	if l.helpRun.runner.reclaim(w, o.slot) {
		l.partWeights(w, o.p)
	}
}

// helpWeights runs offered task a (offerWeights) on goroutine w: the
// weight gradient of a part's last block, in the scratch of the
// goroutine that offered it.
func (l *Convolution) helpWeights(_ int, a int) {
	k := l
	if a>>8&1 != 0 {
		k = l.chain
	}
	k.partWeights(a&(1<<8-1), a>>9)
}

// partWeights adds the weight gradient of part p's last block, loaded in
// goroutine w's scratch, to the part's.
func (l *Convolution) partWeights(w, p int) {
	d := l.dBwd
	g := l.grads[p]
	_, hi := span(p, d.bwdParts, d.nblocks)
	b := hi - 1
	first := b * d.plan.Lanes()
	l.blockWeights(w, g, g.target, b, first, min(d.plan.Lanes(), l.num-first))
}

// partBlocks returns the blocks of part p of a backward run.
func (l *Convolution) partBlocks(p int) int {
	d := l.dBwd
	lo, hi := span(p, d.bwdParts, d.nblocks)
	return hi - lo
}

// startMerges readies the merging of parts' weight gradients
// (mergeParts) for a backward run: none merged yet.
func (l *Convolution) startMerges() {
	for w := range l.mergeNext {
		l.mergeNext[w] = -1
	}
}

// endPart records that goroutine w finished part p of a backward run, its
// weight gradient complete: the next part may add to part 0's when p's
// went there (mergeParts).
func (l *Convolution) endPart(w, p int) {
	if w >= len(l.mergeNext) {
		return
	}
	l.mergeNext[w] = -1
	if g := l.grads[p]; mergeParts && l.wantW && (p == 0 || g.merged) && len(g.target) > 0 {
		l.mergeNext[w] = p + 1
	}
}
