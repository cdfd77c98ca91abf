package caffe

import "github.com/sparknet-go/sparknet/ndarray/kernel"

// ipTopInRun lets a net run the backward pass of a small inner product
// (backwardPair's, LeNet's ip2) with the in-place ReLU below it inside
// the backward run of the inner product below that (LeNet's ip1), when
// that one computes its input gradient's two depth blocks crossed
// (crossTask): one run where there were two, and no goroutine waiting at
// their boundary for the other; benchmarks compare it off.
var ipTopInRun = true

// An inner product whose top the in-place ReLU and a small inner product
// read (LeNet's ip1, with relu1 and ip2) takes the small one's backward
// pass into its own run (Net.backwardIPTop): the small one's input
// gradient, which is this one's output gradient, is cut by columns, the
// outputs of this one, into two parts, as its weight gradient is
// (topColumns), and goroutine p computes part p first, then its depth
// block of the input gradient (the rows of W of those outputs), and its
// weight-gradient rows. Each step reads the output gradient's columns it
// needs once the parts holding them are done (needTop), running any part
// that no goroutine has begun; the values are the two runs', each the
// same sum.

// chainTop readies the small inner product l (the top of the chain) for
// its backward pass in parts (topColumns), run by the inner product
// below it, on its top and bottom blobs: its input gradient with the
// ReLU's gradient (dxReLU), its weight and bias gradients.
func (l *InnerProduct) chainTop(top, bottom []*Blob) {
	beta := float32(1)
	if l.writeDW {
		beta = 0
	}
	l.pair = ipPair{dy: top[0].DiffSlice(), x: bottom[0].DataSlice(), dx: bottom[0].DiffSlice(), dw: l.blobs[0].DiffSlice(), beta: beta}
}

// chainTopEnd ends the backward pass chainTop readied, once its parts are
// done: it updates the weights (updateDW), as backwardPair does, unless
// the parts did (topInRun).
func (l *InnerProduct) chainTopEnd() {
	if l.updateDW != nil && l.updatesParam(0) && !l.topInRun {
		l.updateDW(0, 0, l.n*l.k, nil)
	}
	l.pair, l.topInRun = ipPair{}, false
}

// topRun runs the backward pass chainTop readied as a run of its own
// (backwardPair's parts), for an inner product below that does not take
// it into its run.
func (l *InnerProduct) topRun() {
	l.runner.run(l.threads(), 2, l.pairFn)
}

// topSpan returns the columns [lo, hi) of part p of the two parts of
// topColumns: whole units of pairImages.
func (l *InnerProduct) topSpan(p int) (lo, hi int) {
	lo, hi = span(p, 2, (l.k+pairImages-1)/pairImages)
	return lo * pairImages, min(l.k, hi*pairImages)
}

// topColumns computes part p of the two parts of the backward pass that
// chainTop readied: the input gradient's columns of topSpan(p) for every
// image, through the ReLU's gradient, and the weight gradient's same
// columns, with the bias gradient in part 1; then, on goroutine w, it
// updates the weights of those columns, which only this part reads.
func (l *InnerProduct) topColumns(w, p int) {
	m, n, k := l.m, l.n, l.k
	g := &l.pair
	lo, hi := l.topSpan(p)
	kernel.FCInputGrad(1, 0, m, hi-lo, n, g.dy, n, l.blobs[0].DataSlice()[lo:], k, 0, g.dx[lo:], k)
	if r := l.dxReLU; r != nil {
		for i := range m {
			dx := g.dx[i*k+lo : i*k+hi]
			kernel.ReluGrad(dx, dx, l.dxReLUY[i*k+lo:i*k+hi], r.slope)
		}
	}
	kernel.FCWeightGrad(1, 0, n, hi-lo, m, g.dy, n, g.x[lo:], k, g.beta, g.dw[lo:], k)
	if p == 1 {
		l.biasGrad(g.dy)
	}
	if l.updateDW != nil && l.updatesParam(0) {
		for o := range n {
			l.updateDW(w, o*k+lo, o*k+hi, nil)
		}
	}
}

// topState is the index in dxState of part p of the top's backward pass
// (after the four crossed blocks' tasks).
const topState = 4

// topTask runs part p of the top's backward pass (the blockFn of the
// states from topState).
func (l *InnerProduct) topTask(w, p int) { l.top.topColumns(w, p) }

// needTop returns once the parts of the top's backward pass that write
// the output gradient's columns [lo, hi) are done, running on goroutine w
// those that no goroutine has begun; at once without a top in the run.
func (l *InnerProduct) needTop(w, lo, hi int) {
	if !l.topTasks {
		return
	}
	for p := range 2 {
		plo, phi := l.top.topSpan(p)
		if lo >= hi || hi <= plo || lo >= phi {
			continue
		}
		finishTask(&l.dxState[topState+p], w, topState+p, l.blockFn)
	}
}

// crossesBlocks reports whether Backward, with the settings of the pass
// under way, computes the input gradient's two depth blocks crossed
// (crossTask) in the weight gradient's run, which can take the top's
// backward pass: the conditions of backward, inputGrad,
// weightGradWithBlocks and weightGradSplitRun that lead there.
func (l *InnerProduct) crossesBlocks(propagateDown []bool) bool {
	if !ipCrossBlocks || !ipWholeShares || !ipBalanceRows || !layerParamWork || l.threads() != 2 ||
		l.updateDW == nil || !l.updatesParam(0) || len(propagateDown) == 0 || !propagateDown[0] || l.pairs() ||
		l.writeDW && kernel.FCBackwardFused(l.m, l.n, l.k) {
		return false
	}
	blocks, _ := kernel.FCInputGradBlocks(l.m, l.k, l.n, l.k)
	return blocks == 2 && l.byDepthBlocks(blocks)
}

// endTop ends a backward pass that may have taken the top's parts into
// its run: they must have run.
func (l *InnerProduct) endTop() {
	if l.topTasks && (l.dxState[topState].Load() != taskDone || l.dxState[topState+1].Load() != taskDone) {
		l.topTasks = false
		panic("caffe: the backward pass of the inner product above was not run")
	}
	l.topTasks = false
}

// ipNextInRun lets a net run the forward pass of a small inner product
// that reads the in-place ReLU of another's top (LeNet's ip2, after ip1
// and relu1) inside that one's forward run, when it writes its top by
// images (forwardByImages): each top part goes on with the small
// product for its images, whose rows it has just written in its core's
// cache (Net.ipNextAbove, forwardNext), where the small product ran
// after the run as one part, on one goroutine, reading rows the other
// core wrote; benchmarks compare it off.
var ipNextInRun = true

// forwardNext sets the forward pass of next, on its bottom's values x and
// its top's y, to run in l's Forward (fwdNext), or unsets it (nil).
func (l *InnerProduct) forwardNext(next *InnerProduct, x, y []float32) {
	if prev := l.fwdNext; prev != nil {
		prev.fwd.x, prev.fwd.y = nil, nil
	}
	l.fwdNext = next
	if next != nil {
		next.fwd.x, next.fwd.y = x, y
	}
}

// forwardImages computes the top's rows [lo, hi), images lo to hi, from
// the bottom's (fwd.x, fwd.y), as Forward computes every row: the product
// of those images alone with kernel.FCForward, which sums each value
// alike whatever images lie beside it (more than one: a single image
// takes Sgemm), transposed into the top with the bias added.
func (l *InnerProduct) forwardImages(lo, hi int) {
	f := &l.fwd
	n, k, cnt := l.n, l.k, hi-lo
	yT := l.yT[lo*n : hi*n]
	kernel.FCForward(1, 0, n, cnt, k, l.blobs[0].DataSlice(), k, f.x[lo*k:hi*k], k, 0, yT, cnt)
	var b []float32
	if l.bias {
		b = l.blobs[1].DataSlice()[:n]
	}
	kernel.TransposeAdd(f.y[lo*n:hi*n], n, yT, cnt, n, cnt, b)
}
