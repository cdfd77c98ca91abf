package caffe

import (
	"slices"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// fuseLayers lets Net.Forward and Net.Backward run a convolution, an
// in-place ReLU after it and the pooling of its output block by block
// (convFusion); a variable so that tests and benchmarks can compare the
// fused passes with the layers run one by one.
var fuseLayers = true

// convFusion is a Convolution, optionally an in-place ReLU of its top,
// optionally a MAX or AVE Pooling of that top and an in-place ReLU of the
// pooling's top, which Net.Forward and Net.Backward run as one pass over
// the batch, a block of images at a time (the direct convolution's blocks,
// the column path's chunks): the rectifier and the pooling of a block's
// images run right after the convolution wrote them, while they are in
// the core's cache, and in Backward their gradients of a block right
// before the convolution reads them. The blocks are the convolution's
// parts, so with several threads the layers are shared out over images,
// with one hand-off instead of one per layer.
//
// Each value is computed by the same operations, in the same order, as
// when the layers run one by one, so the results are identical; only the
// order of the passes over the batch changes. The layers' own Forward and
// Backward remain, for Net.ForwardLayer and Net.BackwardLayer (and for
// sparknet time, which times the layers one by one).
type convFusion struct {
	first, last int // the layers: first the convolution
	conv        *Convolution
	relu        *ReLU    // an in-place ReLU of the convolution's top, or nil
	pool        *Pooling // nil without one
	poolReLU    *ReLU    // an in-place ReLU of the pooling's top, or nil
	// lrn: without a pooling, a cross-channel LRN right after the ReLU,
	// the only other reader of the convolution's top, whose Backward
	// passes its gradient through the ReLU's (LRN.reluGrad); when it
	// has (LRN.reluDone) the group's backward leaves the ReLU's out.
	lrn *LRN
	// lanes: the pass rectifies and pools on the direct convolution's
	// interleaved blocks (Convolution.setupDirectPool), the mask and the
	// rectifier's outcome staying there (a last block on the column
	// path excepted).
	lanes bool
	// skipTop: the pass leaves the convolution's top unwritten
	// (Net.SetKeepTops(false); only with lanes, where nothing reads it).
	skipTop bool
	// chunkTop, chunkGrad: on the column path, a chunk's output
	// (Forward) or output gradient (Backward) stays in its worker's
	// buffer, where the pooling reads or writes it, instead of going
	// through the convolution's top, which nothing else reads
	// (Net.SetKeepTops(false); the output only without a ReLU of it,
	// whose gradient reads it). chunkGrad with lanes: the output
	// gradient of a block, which the bias gradient reads, in the
	// worker's buffer (a last block on the column path excepted).
	chunkTop, chunkGrad bool
	// chainLRN: the LRN–pooling pair after the group whose backward runs
	// inside the group's, an image at a time (Net.backwardLRNChain:
	// AlexNet's norm1–pool1 in conv1's group, norm2–pool2 in conv2's), or
	// nil.
	chainLRN *lrnPool
	// stale: the last fused forward left the convolution's top unwritten
	// (it outlives the pass, for a backward that cannot run fused).
	stale bool
	// Set while the fused pass runs, for the convolution's workers.
	y, dy []float32 // the convolution's top values and gradients
	py    []float32 // Backward: the pooling's top values
}

// findFusions records the fusable groups of layers, by first layer.
// A group is a Convolution with one bottom and one top; then, optionally,
// a ReLU in place on that top; then a Pooling (MAX or AVE, one top) of
// it that is the only other layer to read the convolution's top, and,
// optionally, a ReLU in place on the pooling's top. Without the pooling,
// the convolution and its ReLU make a group. No top in the group carries
// a loss weight.
func (n *Net) findFusions() {
	n.fusions = make([]*convFusion, len(n.layers))
	readers := n.blobReaders()
	noLoss := n.noLossWeight
	n.ipReLUs = make([]*ReLU, len(n.layers))
	n.bwdReLUs = make([]*ReLU, len(n.layers))
	for i, l := range n.layers {
		if lrn, ok := l.(*LRN); ok {
			lrn.topKept = n.topKept(i)
		}
		if _, ok := l.(*InnerProduct); ok && len(n.bottoms[i]) == 1 && len(n.tops[i]) == 1 && noLoss(i) {
			top := n.tops[i][0]
			if r, ok := layerAt[*ReLU](n, i+1); ok && top != n.bottoms[i][0] && len(n.bottoms[i+1]) == 1 &&
				n.bottoms[i+1][0] == top && n.tops[i+1][0] == top && noLoss(i+1) {
				n.ipReLUs[i] = r
			}
		}
		if _, ok := l.(*InnerProduct); ok && i > 0 && len(n.bottoms[i]) == 1 && noLoss(i) {
			b := n.bottoms[i][0]
			if r, ok := n.layers[i-1].(*ReLU); ok && len(n.bottoms[i-1]) == 1 && n.bottoms[i-1][0] == b && n.tops[i-1][0] == b &&
				noLoss(i-1) && readers[n.blobIndex[n.def.Layers[i].Bottoms[0]]] == 2 && !slices.Contains(n.tops[i], b) {
				n.bwdReLUs[i] = r
			}
		}
		if r, ok := l.(*ReLU); ok {
			r.keepSigns = n.bottoms[i][0] == n.tops[i][0] && n.topKept(i)
		}
		conv, ok := l.(*Convolution)
		if !ok || len(n.bottoms[i]) != 1 || len(n.tops[i]) != 1 || !noLoss(i) {
			continue
		}
		top := n.tops[i][0]
		if n.bottoms[i][0] == top {
			continue
		}
		f := &convFusion{first: i, conv: conv}
		j := i + 1
		want := 1
		if j < len(n.layers) {
			if r, ok := n.layers[j].(*ReLU); ok && len(n.bottoms[j]) == 1 && n.bottoms[j][0] == top && n.tops[j][0] == top && noLoss(j) {
				f.relu = r
				j++
				want++
			}
		}
		var p *Pooling
		if j < len(n.layers) {
			p, _ = n.layers[j].(*Pooling)
		}
		if p == nil || len(n.bottoms[j]) != 1 || n.bottoms[j][0] != top || len(n.tops[j]) != 1 || n.tops[j][0] == top || !noLoss(j) ||
			(p.method != caffepb.PoolingParameter_MAX && p.method != caffepb.PoolingParameter_AVE) ||
			readers[n.blobIndex[n.def.Layers[i].Tops[0]]] != want {
			if f.relu != nil {
				// The convolution and its ReLU.
				f.last = i + 1
				n.fusions[i] = f
				if l, ok := layerAt[*LRN](n, j); ok && !l.within && len(n.bottoms[j]) == 1 && n.bottoms[j][0] == top &&
					readers[n.blobIndex[n.def.Layers[i].Tops[0]]] == 2 {
					f.lrn, l.reluGrad = l, f.relu
				}
			}
			continue
		}
		f.pool, f.last = p, j
		pt := n.tops[j][0]
		if k := j + 1; k < len(n.layers) {
			if r, ok := n.layers[k].(*ReLU); ok && len(n.bottoms[k]) == 1 && n.bottoms[k][0] == pt && n.tops[k][0] == pt && noLoss(k) {
				f.poolReLU, f.last = r, k
			}
		}
		n.fusions[i] = f
	}
}

// forwardIPReLU runs inner product i and the in-place ReLU of its top
// after it (Net.ipReLUs) as one run: each of the product's parts
// rectifies the values it wrote (InnerProduct.relu), the same values as
// the ReLU's own pass over the top, while they are in its core's cache
// and without a pass of its own, which on more than one thread would
// leave the other threads idle (LeNet's ip1 and relu1). The run may take
// in the forward pass of the inner product after them too (ipNextAbove,
// LeNet's ip2), as next reports.
func (n *Net) forwardIPReLU(i int, r *ReLU) (next bool, err error) {
	up := n.ipNextAbove(i)
	last := i + 1
	if up != nil {
		last = i + 2
	}
	for j := i; j <= last; j++ {
		if shapesChanged(n.bottomShapes[j], n.bottoms[j]) {
			if err := n.reshapeLayer(j); err != nil {
				return false, err
			}
		}
	}
	ip := n.layers[i].(*InnerProduct)
	if up != nil && (up.m != ip.m || up.k != ip.n || ip.m%pairImages == 1) {
		up = nil // (a part of one image would take Sgemm's sums: see forwardImages)
	}
	r.forgetSigns()
	var ferr error
	err = n.guard(i, func() {
		ip.relu = r
		if up != nil {
			ip.forwardNext(up, n.bottoms[i+2][0].DataSlice(), n.tops[i+2][0].DataSlice())
		}
		defer func() {
			ip.relu = nil
			ip.forwardNext(nil, nil, nil)
		}()
		ferr = ip.Forward(n.bottoms[i], n.tops[i])
	})
	if err == nil {
		err = ferr
	}
	return up != nil && ip.fwdNextRan, err
}

// ipNextAbove returns the inner product right after inner product i and
// the in-place ReLU of its top (Net.ipReLUs) that reads that top alone
// and writes another, is no loss and has no ReLU of its own after it,
// whose forward pass i's run may compute (InnerProduct.fwdNext: LeNet's
// ip2 after ip1 and relu1), or nil.
func (n *Net) ipNextAbove(i int) *InnerProduct {
	if !ipNextInRun {
		return nil
	}
	up, ok := layerAt[*InnerProduct](n, i+2)
	if !ok || len(n.bottoms[i+2]) != 1 || n.bottoms[i+2][0] != n.tops[i][0] || len(n.tops[i+2]) != 1 ||
		n.tops[i+2][0] == n.tops[i][0] || up.transpose || n.ipReLUs[i+2] != nil || !n.noLossWeight(i+2) {
		return nil
	}
	return up
}

// gradReLU returns the in-place ReLU right before inner product i whose
// backward pass runs with the product's (Net.bwdReLUs), if both run
// backward and the ReLU's input wants a gradient; else nil.
func (n *Net) gradReLU(i int) *ReLU {
	r := n.bwdReLUs[i]
	if r == nil || !fuseLayers || !n.layerNeedBackward[i] || !n.layerNeedBackward[i-1] ||
		!n.bottomNeedBackward[i][0] || !n.bottomNeedBackward[i-1][0] {
		return nil
	}
	return r
}

// backwardIPReLU runs inner product i's backward pass and that of the
// in-place ReLU of its bottom (gradReLU) as one: the part that computes
// the product's input gradient (on two threads, beside the weight
// gradient: LeNet's ip2) passes it through the ReLU's gradient, the same
// values as the ReLU's own pass, while they are in its core's cache and
// without a pass that on two threads would leave the other idle (LeNet's
// relu1).
func (n *Net) backwardIPReLU(i int, r *ReLU) error {
	ip := n.layers[i].(*InnerProduct)
	return n.guard(i, func() {
		ip.dxReLU, ip.dxReLUY = r, n.bottoms[i][0].DataSlice()
		defer func() { ip.dxReLU, ip.dxReLUY = nil, nil }()
		ip.Backward(n.tops[i], n.bottomNeedBackward[i], n.bottoms[i])
	})
}

// ipTopBelow returns the inner product below the in-place ReLU of inner
// product i's bottom (gradReLU) whose backward run can take theirs
// (InnerProduct.chainTop: LeNet's ip1 below relu1 and ip2), if it runs
// backward, writes the ReLU's blob alone and is no loss, and i computes
// its gradients side by side (backwardPair); else nil. It may still run
// theirs as a run of its own (InnerProduct.crossesBlocks).
func (n *Net) ipTopBelow(i int) *InnerProduct {
	if !ipTopInRun || i < 2 {
		return nil
	}
	top, ok := n.layers[i].(*InnerProduct)
	low, ok2 := n.layers[i-2].(*InnerProduct)
	if !ok || !ok2 || !n.layerNeedBackward[i-2] || len(n.tops[i-2]) != 1 || n.tops[i-2][0] != n.bottoms[i][0] ||
		len(n.bottoms[i-2]) != 1 || n.bottoms[i-2][0] == n.tops[i-2][0] || !top.pairs() || top.transpose ||
		top.m != low.m || top.k != low.n || low.transpose {
		return nil
	}
	if !n.noLossWeight(i - 2) {
		return nil
	}
	return low
}

// backwardIPTop runs the backward pass of inner product i, of the
// in-place ReLU of its bottom and of inner product low below it
// (ipTopBelow) as one: low's run computes i's in parts (chainTop), which
// pass their input gradient through the ReLU's gradient, then i updates
// its weights.
func (n *Net) backwardIPTop(i int, r *ReLU, low *InnerProduct) error {
	top, j := n.layers[i].(*InnerProduct), i-2
	top.dxReLU, top.dxReLUY = r, n.bottoms[i][0].DataSlice()
	top.chainTop(n.tops[i], n.bottoms[i])
	low.top = top
	defer func() {
		low.top = nil
		top.dxReLU, top.dxReLUY = nil, nil
		top.pair = ipPair{}
	}()
	if err := n.guard(j, func() { low.Backward(n.tops[j], n.bottomNeedBackward[j], n.bottoms[j]) }); err != nil {
		return err
	}
	return n.guard(i, top.chainTopEnd)
}

// topKept reports whether layer i's tops keep the values it writes until
// its backward pass: no later layer writes them (in place).
func (n *Net) topKept(i int) bool {
	for j := i + 1; j < len(n.layers); j++ {
		for _, t := range n.tops[j] {
			if slices.Contains(n.tops[i], t) {
				return false
			}
		}
	}
	return true
}

// layerAt returns layer i of the net as a T, if there is one.
func layerAt[T Layer](n *Net, i int) (T, bool) {
	if i >= len(n.layers) {
		var zero T
		return zero, false
	}
	l, ok := n.layers[i].(T)
	return l, ok
}

// fits reports whether the group, reshaped, can run fused: the
// convolution's top is [N, C, H, W], which the pooling reads whole, and
// the convolution runs on the direct path or shares its chunks of images
// among all its threads (the column path, a chunk's images at a time).
func (f *convFusion) fits() bool {
	c, p := f.conv, f.pool
	return fuseLayers && (c.direct != nil || c.chunks >= c.threads()) && c.axis == 1 &&
		(p == nil || p.num == c.num && p.channels == c.numOutput && p.height == c.outH && p.width == c.outW)
}

// forwardFused runs the group's Forward: reshapes where inputs changed,
// then the fused pass, or the layers one by one when the group does not
// fit.
func (n *Net) forwardFused(f *convFusion) error {
	for i := f.first; i <= f.last; i++ {
		if shapesChanged(n.bottomShapes[i], n.bottoms[i]) {
			if err := n.reshapeLayer(i); err != nil {
				return err
			}
		}
	}
	if !f.fits() {
		return n.forwardLayers(f)
	}
	var ferr error
	err := n.guard(f.first, func() {
		n.setupForward(f)
		defer f.release()
		ferr = f.conv.Forward(n.bottoms[f.first], n.tops[f.first])
	})
	if err == nil {
		err = ferr
	}
	return err
}

// setupForward sets the group's fused forward pass up.
func (n *Net) setupForward(f *convFusion) {
	top := n.tops[f.first][0]
	f.y = top.DataSlice()
	if f.pool != nil {
		f.pool.x, f.pool.y = f.y, n.tops[f.poolIndex()][0].DataSlice()
	}
	f.relu.forgetSigns()
	f.poolReLU.forgetSigns()
	f.conv.fused = f
	f.lanes = f.conv.setupDirectPool(f)
	f.skipTop = f.lanes && n.skipUnread
	f.chunkTop = n.skipUnread && f.conv.direct == nil && f.pool != nil && f.relu == nil
	if f.chunkTop {
		f.conv.growChunkBuffers()
	}
	f.stale = f.skipTop || f.chunkTop
	if f.pool != nil {
		f.pool.pending = nil
		if f.lanes {
			f.pool.pending = f
		}
	}
}

// chainNext returns the group that starts right after group f and reads
// its last top, if any: with both convolutions on the direct path in
// blocks of the same images, the two run as one run over the blocks
// (forwardChain), a block's images through both groups, with one hand-off
// instead of two and the first group's output of a block still in the
// core's cache when the second reads it.
func (n *Net) chainNext(f *convFusion) *convFusion {
	j := f.last + 1
	if j >= len(n.layers) || !chainGroups {
		return nil
	}
	g := n.fusions[j]
	if g == nil || n.bottoms[g.first][0] != n.tops[f.last][0] {
		return nil
	}
	return g
}

// chainFits reports whether groups f and g run chained as they are
// shaped: both fused, their convolutions on the direct path in the same
// blocks of images, on more than one goroutine.
func chainFits(f, g *convFusion) bool {
	c, k := f.conv.direct, g.conv.direct
	return f.fits() && g.fits() && c != nil && k != nil && c.nblocks == k.nblocks &&
		c.plan.Lanes() == k.plan.Lanes() && c.workers == k.workers && c.workers > 1
}

// chainGroups lets Net.Forward chain groups (tests compare it off).
var chainGroups = true

// forwardChain runs groups f and g (chainNext) forward as one run when
// both fit (as forwardFused runs one) and reports true; else it runs f
// alone and reports false.
func (n *Net) forwardChain(f, g *convFusion) (bool, error) {
	fits, err := n.chainReady(f, g)
	if err != nil {
		return false, err
	}
	if !fits {
		return false, n.forwardFused(f)
	}
	return true, n.runChain(f, g)
}

// chainReady reshapes the layers of groups f and g whose inputs changed
// shape and reports whether the two run chained (chainFits).
func (n *Net) chainReady(f, g *convFusion) (bool, error) {
	for _, h := range [...]*convFusion{f, g} {
		for i := h.first; i <= h.last; i++ {
			if shapesChanged(n.bottomShapes[i], n.bottoms[i]) {
				if err := n.reshapeLayer(i); err != nil {
					return false, err
				}
			}
		}
	}
	return chainFits(f, g), nil
}

// runChain runs groups f and g forward as one run (chainReady true).
func (n *Net) runChain(f, g *convFusion) error {
	return n.guard(f.first, func() {
		n.setupForward(f)
		defer f.release()
		n.setupForward(g)
		defer g.release()
		f.conv.forwardDirectChain(g.conv, n.bottoms[f.first][0], n.tops[f.first][0], n.bottoms[g.first][0], n.tops[g.first][0])
	})
}

// backwardFused runs the group's Backward, fused when every layer of it
// runs backward and the convolution does (its weights, bias or input
// want a gradient), else the layers one by one.
func (n *Net) backwardFused(f *convFusion) error {
	c := f.conv
	if !n.fusedBackward(f) {
		if f.stale {
			// The layers' own backward passes read the top the fused
			// forward did not write (an in-place ReLU's gradient does):
			// compute it again, the same values, layer by layer.
			if err := n.forwardLayers(f); err != nil {
				return err
			}
		}
		for i := f.last; i >= f.first; i-- {
			if err := n.BackwardLayer(i); err != nil {
				return err
			}
		}
		return nil
	}
	return n.guard(f.first, func() {
		n.setupBackward(f)
		defer f.release()
		c.Backward(n.tops[f.first], n.bottomNeedBackward[f.first], n.bottoms[f.first])
	})
}

// fusedBackward reports whether the group's backward runs fused: every
// layer of it runs backward, and the convolution does (its weights, bias
// or input want a gradient).
func (n *Net) fusedBackward(f *convFusion) bool {
	fused := f.fits()
	for i := f.first; i <= f.last; i++ {
		fused = fused && n.layerNeedBackward[i]
		if i > f.first {
			fused = fused && n.bottomNeedBackward[i][0]
		}
	}
	c := f.conv
	return fused && (c.paramGrad(0) || c.bias && c.paramGrad(1) || n.bottomNeedBackward[f.first][0])
}

// setupBackward sets the group's fused backward pass up.
func (n *Net) setupBackward(f *convFusion) {
	c := f.conv
	top := n.tops[f.first][0]
	f.y, f.dy = top.DataSlice(), top.DiffSlice()
	if f.pool != nil {
		pt := n.tops[f.poolIndex()][0]
		f.py = pt.DataSlice()
		f.pool.x, f.pool.y = f.dy, pt.DiffSlice()
	}
	c.fused = f
	f.lanes = f.pool != nil && f.pool.pending == f
	f.chunkGrad = n.skipUnread && (f.pool != nil || f.chainLRN != nil) && (c.direct == nil || f.lanes)
	if f.chunkGrad {
		c.growChunkBuffers()
	}
}

// chainPrev returns the group that ends right before group f and whose
// last top f's convolution reads, if any: backward, the two can run as
// one run over the blocks (backwardChain), a block's gradients through f's
// group and then through g's.
func (n *Net) chainPrev(f *convFusion) *convFusion {
	if f.first == 0 || !chainGroups {
		return nil
	}
	g := n.fusionEndingAt(f.first - 1)
	if g == nil || n.tops[g.last][0] != n.bottoms[f.first][0] {
		return nil
	}
	return g
}

// backwardChains reports whether groups f and g (chainPrev) run backward
// chained: both fused, on the direct path (chainFits), a part of each
// convolution's backward a block.
func (n *Net) backwardChains(f, g *convFusion) bool {
	if !n.fusedBackward(f) || !n.fusedBackward(g) || !chainFits(f, g) {
		return false
	}
	c, k := f.conv.direct, g.conv.direct
	return c.bwdParts == c.nblocks && k.bwdParts == k.nblocks
}

// backwardChain runs groups f and g (backwardChains) backward as one run.
func (n *Net) backwardChain(f, g *convFusion) error {
	return n.guard(f.first, func() {
		n.setupBackward(f)
		defer f.release()
		n.setupBackward(g)
		defer g.release()
		f.conv.backwardDirectChain(g.conv, n.tops[f.first][0], n.bottoms[f.first][0], n.bottomNeedBackward[f.first][0],
			n.tops[g.first][0], n.bottoms[g.first][0], n.bottomNeedBackward[g.first][0])
	})
}

// forwardLayers runs the group's layers one by one, each writing its tops.
func (n *Net) forwardLayers(f *convFusion) error {
	f.stale = false
	for i := f.first; i <= f.last; i++ {
		if _, err := n.ForwardLayer(i); err != nil {
			return err
		}
	}
	return nil
}

// release drops the slices of the pass.
func (f *convFusion) release() {
	f.conv.fused, f.y, f.dy, f.py, f.lanes, f.skipTop = nil, nil, nil, nil, false, false
	f.chunkTop, f.chunkGrad = false, false
	if f.pool != nil {
		f.pool.x, f.pool.y = nil, nil
	}
}

// SetKeepTops sets whether Forward and Backward write every top and its
// gradient (keep, the default) or may leave unwritten those that no layer
// of the net reads: the output of a convolution that runs fused with a
// pooling of its interleaved image blocks (LeNet's conv1 and conv2, and
// CIFAR-10 quick's conv2 and conv3, rectified in place before their AVE
// pooling), which the pooling and the gradients take from those blocks,
// and its gradient, which only the bias gradient reads, from a worker's
// buffer (a last block on the column path excepted); and the output and
// its gradient of a convolution pooled a chunk of images at a time on the
// column path without a ReLU in between (CIFAR-10 quick's conv1), which
// stay in a worker's buffer while the pooling reads or writes them; and
// the output gradient of a cross-channel LRN pooled image by image
// (AlexNet's norm1 and norm2, net_fuse_lrn.go), and its output where its
// backward pass recomputes it (β = ¾) but for the first (local_size−1)/2
// channels, which that pass reads, stay in a worker's buffer of one
// image, as does the output gradient of the convolution before such an
// LRN when the pair's backward runs inside the convolution's group
// (AlexNet's conv1, Net.backwardLRNChain).
// Training that never looks at such a blob saves writing it out (in
// LeNet, 3.7 MB per iteration; CIFAR-10 quick's conv1, 13 MB and its
// gradient as much); the blob's values are then those of an earlier
// pass, or zero, and a divergence report names the pooling's top as the
// first that is not finite. Every other blob, the parameters' gradients
// and the weights are the same bit for bit either way. The trainer's
// replicas train this way.
func (n *Net) SetKeepTops(keep bool) { n.skipUnread = !keep }

// guard runs fn, turning a panic into an error naming layer i.
func (n *Net) guard(i int, fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(n.def.Layers[i], r)
		}
	}()
	fn()
	return nil
}

// forwardBlock rectifies and pools the images [lo, lo+k) that the
// convolution has just written into y (their part of its top, or a
// worker's buffer); with lanes, the convolution rectified and pooled them
// on its interleaved block, on the row convolution it rectified them
// (forwardRows), and with rectified it rectified them as it stored them
// (DirectConv.ForwardReLU).
func (f *convFusion) forwardBlock(lo, k int, lanes, rectified bool, y []float32) {
	c, p := f.conv, f.pool
	if f.relu != nil && !lanes && !rectified && c.rows == nil {
		kernel.Relu(y, y, f.relu.slope)
	}
	if p == nil {
		return
	}
	if !lanes {
		p.forwardPlanes(y, lo*c.numOutput, (lo+k)*c.numOutput)
	}
	if f.poolReLU != nil {
		size := p.channels * p.outH * p.outW
		y := p.y[lo*size : (lo+k)*size]
		kernel.Relu(y, y, f.poolReLU.slope)
	}
}

// backwardBlock computes the convolution's top gradient of the images
// [lo, lo+k) into dy (their part of the top's gradient, or a worker's
// buffer) from the pooling's, through the rectifier, as goroutine w;
// with lanes, only the rectifier's of the pooling's top (the convolution
// routes the pooling's gradient, and its rectifier's, on its interleaved
// block).
func (f *convFusion) backwardBlock(w, lo, k int, lanes bool, dy []float32) {
	c, p := f.conv, f.pool
	if lp := f.chainLRN; lp != nil {
		for j := range k {
			lp.backwardImageTo(w, lo+j, dy[j*c.outSize:(j+1)*c.outSize])
		}
	}
	if f.poolReLU != nil {
		// In place: the pooling's top values are the rectifier's.
		size := p.channels * p.outH * p.outW
		a, b := lo*size, (lo+k)*size
		kernel.ReluGrad(p.y[a:b], p.y[a:b], f.py[a:b], f.poolReLU.slope)
	}
	if lanes {
		return
	}
	if p != nil {
		p.backwardPlanes(w, dy, lo*c.numOutput, (lo+k)*c.numOutput, false)
	}
	if f.relu != nil && !f.reluDone() {
		kernel.ReluGrad(dy, dy, f.y[lo*c.outSize:(lo+k)*c.outSize], f.relu.slope)
	}
}

// reluDone reports whether the ReLU's gradient is in the convolution's top
// gradient already: the LRN after it computed it (convFusion.lrn).
func (f *convFusion) reluDone() bool { return f.lrn != nil && f.lrn.reluDone }

// poolIndex returns the index of the group's pooling layer.
func (f *convFusion) poolIndex() int {
	if f.poolReLU != nil {
		return f.last - 1
	}
	return f.last
}

// fusionEndingAt returns the group whose last layer is i, if any.
func (n *Net) fusionEndingAt(i int) *convFusion {
	for j := max(0, i-3); j < i; j++ {
		if f := n.fusions[j]; f != nil && f.last == i {
			return f
		}
	}
	return nil
}

// blobReaders returns, by blob index, how many layers take the blob as a
// bottom.
func (n *Net) blobReaders() []int {
	readers := make([]int, len(n.blobs))
	for i := range n.layers {
		for _, b := range n.def.Layers[i].Bottoms {
			readers[n.blobIndex[b]]++
		}
	}
	return readers
}

// noLossWeight reports whether layer i gives none of its tops a loss
// weight.
func (n *Net) noLossWeight(i int) bool {
	for _, w := range n.def.Layers[i].LossWeights {
		if w != 0 {
			return false
		}
	}
	return true
}
