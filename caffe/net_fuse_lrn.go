package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// lrnPool is a cross-channel LRN and the MAX or AVE pooling of its output
// (AlexNet's norm1 and pool1, norm2 and pool2), which Net.Forward and
// Net.Backward run as one pass over the images: forward, each image's
// output is pooled right after the LRN wrote it, while it is in the
// core's cache, instead of in a second pass over the batch that reads it
// back from memory; backward, the pooling's gradient of an image is
// routed right before the LRN's backward reads it.
//
// With Net.SetKeepTops(false), the LRN's output and its gradient, which
// no other layer reads, stay in a worker's buffer of one image instead of
// going through the LRN's top (where the LRN's backward recomputes its
// output from its input, β = ¾: it then reads only the output of the
// first (size−1)/2 channels, which the forward pass writes to the top
// too).
//
// Each value is computed by the same operations, in the same order, as
// when the layers run one by one, so the results are identical.
type lrnPool struct {
	first int // the LRN's layer; the pooling's is first+1
	lrn   *LRN
	pool  *Pooling
	// skipTop: the forward pass leaves the LRN's top unwritten but for
	// its first channels; skipGrad: the backward pass leaves its
	// gradient unwritten. Both keep the image in buf.
	skipTop, skipGrad bool
	buf               [][]float32 // per goroutine: one image of the LRN's top
	// Set while the pass runs, for the workers.
	x, y, dx, dy []float32 // the LRN's bottom and top values and gradients
	fwdFn, bwdFn func(w, p int)
}

// findLRNPools records the LRN–pooling pairs that run as one pass, by
// the LRN's layer: a cross-channel LRN with one bottom and one top,
// followed by a MAX or AVE pooling of that top (one top, no mask top),
// the only layer that reads it; neither with a loss weight.
func (n *Net) findLRNPools() {
	n.lrnPools = make([]*lrnPool, len(n.layers))
	readers := n.blobReaders()
	noLoss := n.noLossWeight
	for i := 0; i+1 < len(n.layers); i++ {
		l, ok := n.layers[i].(*LRN)
		p, ok2 := n.layers[i+1].(*Pooling)
		if !ok || !ok2 || l.within || len(n.bottoms[i]) != 1 || len(n.tops[i]) != 1 || len(n.bottoms[i+1]) != 1 || len(n.tops[i+1]) != 1 {
			continue
		}
		top := n.tops[i][0]
		if n.bottoms[i][0] == top || n.bottoms[i+1][0] != top || n.tops[i+1][0] == top || !noLoss(i) || !noLoss(i+1) ||
			readers[n.blobIndex[n.def.Layers[i].Tops[0]]] != 1 ||
			(p.method != caffepb.PoolingParameter_MAX && p.method != caffepb.PoolingParameter_AVE) {
			continue
		}
		f := &lrnPool{first: i, lrn: l, pool: p}
		f.fwdFn, f.bwdFn = f.forwardImage, f.backwardImage
		n.lrnPools[i] = f
	}
}

// lrnPoolEndingAt returns the pair whose pooling is layer i, if any.
func (n *Net) lrnPoolEndingAt(i int) *lrnPool {
	if i == 0 || n.lrnPools == nil {
		return nil
	}
	return n.lrnPools[i-1]
}

// fits reports whether the pair, reshaped, can run as one pass: the
// pooling reads the LRN's top whole.
func (f *lrnPool) fits() bool {
	l, p := f.lrn, f.pool
	return fuseLayers && p.num == l.num && p.channels == l.chans && p.height == l.height && p.width == l.width
}

// grow gives each of the LRN's goroutines a buffer of one image.
func (f *lrnPool) grow() {
	l := f.lrn
	size := l.chans * l.height * l.width
	for len(f.buf) < l.workers() {
		f.buf = append(f.buf, nil)
	}
	for w := range l.workers() {
		f.buf[w] = growFloats(f.buf[w], size)
	}
}

// forwardLRNPool runs the pair's Forward: reshapes where inputs changed,
// then the pass, or the two layers one by one when the pair does not
// fit.
func (n *Net) forwardLRNPool(f *lrnPool) error {
	i := f.first
	for j := i; j <= i+1; j++ {
		if shapesChanged(n.bottomShapes[j], n.bottoms[j]) {
			if err := n.reshapeLayer(j); err != nil {
				return err
			}
		}
	}
	if !f.fits() {
		for j := i; j <= i+1; j++ {
			if _, err := n.ForwardLayer(j); err != nil {
				return err
			}
		}
		return nil
	}
	return n.guard(i, func() {
		l, p := f.lrn, f.pool
		l.reluDone = false
		p.pending = nil
		f.x, f.y = n.bottoms[i][0].DataSlice(), n.tops[i][0].DataSlice()
		p.y = n.tops[i+1][0].DataSlice()
		f.skipTop = n.skipUnread && l.topKept && l.beta == 0.75 && l.size > 1
		if f.skipTop {
			f.grow()
		}
		defer f.release()
		l.runner.run(l.workers(), l.num, f.fwdFn)
	})
}

// forwardImage normalises and pools image img as goroutine w. Where
// the LRN takes each plane whole (one chunk of positions), it goes a
// group of channels at a time (lrnPoolGroup), each group pooled right
// after it is normalised, while it is in the core's first caches; with
// skipTop, every group goes through the first planes of the buffer.
func (f *lrnPool) forwardImage(w, img int) {
	l, p := f.lrn, f.pool
	hw := l.height * l.width
	size := l.chans * hw
	x, y := f.x[img*size:(img+1)*size], f.y[img*size:(img+1)*size]
	if f.skipTop {
		y = f.buf[w][:size]
	}
	// The output the backward pass reads (acrossBackward's ratios of the
	// channels in the window before the first).
	keep := min(l.chans, (l.size-1)/2)
	if l.within || l.chunk < hw {
		l.forwardImage(l.scratch[w], x, y)
		p.forwardPlanes(y, img*l.chans, (img+1)*l.chans)
		if f.skipTop {
			copy(f.y[img*size:img*size+keep*hw], y[:keep*hw])
		}
		return
	}
	s := l.scratch[w]
	sc := l.startScale(s, x, 0, hw)
	g := max(1, lrnPoolGroup/hw)
	for c0 := 0; c0 < l.chans; c0 += g {
		c1 := min(c0+g, l.chans)
		yg := y[c0*hw : c1*hw]
		if f.skipTop {
			yg = y[:(c1-c0)*hw]
		}
		l.acrossForwardChans(s, x, yg, sc, 0, hw, c0, c1)
		p.forwardPlanes(yg, img*l.chans+c0, img*l.chans+c1)
		if f.skipTop && c0 < keep {
			n := min(keep, c1) - c0
			copy(f.y[img*size+c0*hw:img*size+(c0+n)*hw], yg[:n*hw])
		}
	}
}

// lrnPoolGroup is about how many floats of the LRN's output a group of
// channels of lrnPool's forward pass holds (at least one plane).
var lrnPoolGroup = 16 << 10

// fusesBackward reports whether the pair's backward runs as one pass:
// both layers run backward, the LRN's bottom and the pooling's bottom
// want their gradients, and the pair fits.
func (n *Net) fusesBackward(f *lrnPool) bool {
	i := f.first
	return f.fits() && n.layerNeedBackward[i] && n.layerNeedBackward[i+1] && n.bottomNeedBackward[i+1][0] &&
		n.bottomNeedBackward[i][0] && f.pool.pending == nil
}

// backwardLRNPool runs the pair's Backward: as one pass when
// fusesBackward, else the layers one by one.
func (n *Net) backwardLRNPool(f *lrnPool) error {
	i := f.first
	if !n.fusesBackward(f) {
		for j := i + 1; j >= i; j-- {
			if err := n.BackwardLayer(j); err != nil {
				return err
			}
		}
		return nil
	}
	return n.guard(i, func() {
		l := f.lrn
		n.setupLRNPoolBackward(f)
		defer f.release()
		l.runner.run(l.workers(), l.num, f.bwdFn)
	})
}

// setupLRNPoolBackward sets the pair's backward pass up.
func (n *Net) setupLRNPoolBackward(f *lrnPool) {
	i := f.first
	f.x, f.dx = n.bottoms[i][0].DataSlice(), n.bottoms[i][0].DiffSlice()
	f.y, f.dy = n.tops[i][0].DataSlice(), n.tops[i][0].DiffSlice()
	f.pool.y = n.tops[i+1][0].DiffSlice()
	f.skipGrad = n.skipUnread
	if f.skipGrad {
		f.grow()
	}
	f.lrn.reluDone = f.lrn.reluGrad != nil
}

// backwardImage routes the pooling's gradient of image img and computes
// the LRN's into its bottom's gradient, as goroutine w.
func (f *lrnPool) backwardImage(w, img int) {
	size := f.lrn.chans * f.lrn.height * f.lrn.width
	f.backwardImageTo(w, img, f.dx[img*size:(img+1)*size])
}

// backwardImageTo routes the pooling's gradient of image img and
// computes the LRN's into dx (the image's part of the LRN's bottom
// gradient, or a buffer of the convolution before it), as goroutine w.
func (f *lrnPool) backwardImageTo(w, img int, dx []float32) {
	l, p := f.lrn, f.pool
	size := l.chans * l.height * l.width
	a, b := img*size, (img+1)*size
	dy := f.dy[a:b]
	if f.skipGrad {
		dy = f.buf[w][:size]
	}
	// Into the cache, not by non-temporal stores: the LRN reads it next.
	p.backwardPlanes(w, dy, img*l.chans, (img+1)*l.chans, false)
	l.backwardImage(l.scratch[w], f.x[a:b], f.y[a:b], dy, dx)
}

// chainedConv returns the fused group that ends right before the pair,
// whose rectified top the LRN reads, when the pair's backward runs inside
// the group's (backwardLRNChain): both run backward fused, and the
// group's convolution computes its weight gradient on the row
// convolution (a net's first layer: AlexNet's conv1), a chunk of images
// at a time, or runs on the direct path (AlexNet's conv2), a block of
// images at a time, on no more goroutines than the pair's layers have
// buffers for.
func (n *Net) chainedConv(f *lrnPool) *convFusion {
	if f.first == 0 || !chainGroups {
		return nil
	}
	g := n.fusionEndingAt(f.first - 1)
	if g == nil || g.lrn != f.lrn || g.pool != nil || !n.fusesBackward(f) || !n.fusedBackward(g) {
		return nil
	}
	c := g.conv
	if d := c.direct; d != nil {
		if d.workers > f.lrn.workers() || d.workers > f.pool.threads() {
			return nil
		}
		return g
	}
	if !c.rowsGradApplies(n.bottomNeedBackward[g.first]) {
		return nil
	}
	return g
}

// backwardLRNChain runs the backward passes of the pair f and the group
// g before it (chainedConv) as one run over the convolution's chunks or
// blocks: each image's gradient goes through the pooling and the LRN (and
// so the ReLU) right before the convolution's gradients read it, while it
// is in the core's caches (convFusion.backwardBlock); on the row
// convolution, with Net.SetKeepTops(false), it stays in a worker's buffer
// instead of the convolution's top.
func (n *Net) backwardLRNChain(f *lrnPool, g *convFusion) error {
	n.setupLRNPoolBackward(f)
	defer f.release()
	g.chainLRN = f
	defer func() { g.chainLRN = nil }()
	return n.backwardFused(g)
}

// release drops the slices of the pass.
func (f *lrnPool) release() {
	f.x, f.y, f.dx, f.dy = nil, nil, nil, nil
	f.pool.x, f.pool.y = nil, nil
	f.skipTop, f.skipGrad = false, false
}
