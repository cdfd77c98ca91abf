package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "LRN", Bottoms: Exactly(1), Tops: Exactly(1), New: newLRN, Shape: ruleOf((*LRN).inferShapes)})
}

// LRN is local response normalisation over a 4-D bottom, y = x·s^−β.
// ACROSS_CHANNELS (the default): s = k + α/n · Σ x² over the n channels
// centred on x's (channels past the ends count as zero). WITHIN_CHANNEL:
// s = 1 + α/n² · Σ x² over the n×n zero-padded spatial window centred on
// x (k is not used, as in Caffe, which builds this mode from pooling and
// power layers). n is local_size and must be odd.
//
// The layer works a channel plane at a time, so that a plane's values stay
// in the cache from the sums to the output; the cross-channel mode makes
// one pass per plane (the kernel package's LRN kernels). Backward
// recomputes s and s^−β by the same operations as Forward rather than
// storing them, which costs less than the memory traffic of a stored
// copy, and in a net where no later layer writes the top (β = ¾, across
// channels) the output too, rather than reading it; with several threads
// the images are shared out among them.
type LRN struct {
	layerBase
	size               int
	alpha, beta, k     float32
	within             bool
	num, chans, height int
	width              int
	chunk              int // ACROSS: the positions of a plane worked on together
	scratch            []*lrnScratch

	// reluGrad: the bottom is the output of a ReLU in place, fused with
	// the convolution before it, whose gradient the cross-channel
	// Backward computes too (kernel.LRNBackwardReLU), set by the net
	// (findFusions); reluDone: the last Backward did, so that the
	// group's backward pass can leave it out (it would give the same
	// values again).
	reluGrad *ReLU
	reluDone bool
	// topKept: set by the net where no later layer writes the top, so
	// that the top holds Forward's output at Backward; the cross-channel
	// Backward with β = ¾ then recomputes the output from the input
	// (kernel.LRNStep75X, the same values) instead of reading it.
	topKept bool

	// The current call, for the workers.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
	x, y, dx, dy []float32
}

// lrnChunk is the most positions of the channel planes that the
// cross-channel mode works on at once, so that the rings of the window's
// planes of large images stay in the core's second-level cache. (Smaller
// chunks, to stay in the first-level cache, measured slower: the passes
// over the planes then read and write short runs of each.)
const lrnChunk = 4096

// lrnScratch is one worker's buffers.
type lrnScratch struct {
	sq    []float32 // WITHIN: the squares of one plane
	scale []float32 // H·W: s of the current plane (ACROSS: of a chunk)
	pow   []float32 // ACROSS: a ring of the window's n chunks of s^−β; WITHIN: one plane
	ratio []float32 // ACROSS: a ring of the window's n chunks of dy·y/s
	zero  []float32 // ACROSS: a chunk of zeros, the planes past the channels' ends
	accum []float32 // H·W
	box   []float32 // H·W
}

var _ Layer = (*LRN)(nil)

func newLRN(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetLrnParam())
	l := &LRN{
		layerBase: newLayerBase("LRN", def, env),
		size:      int(p.GetLocalSize()),
		alpha:     p.GetAlpha(), beta: p.GetBeta(), k: p.GetK(),
		within: p.GetNormRegion() == caffepb.LRNParameter_WITHIN_CHANNEL,
	}
	if l.size%2 != 1 {
		return nil, fmt.Errorf("lrn_param.local_size %d must be odd", l.size)
	}
	l.fwdFn, l.bwdFn = l.forwardWorker, l.backwardWorker
	return l, nil
}

// Setup checks the blobs and shapes the top.
func (l *LRN) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// checkLRN checks that the input has 4 axes.
func checkLRN(b Shape) error {
	if len(b) != 4 {
		return fmt.Errorf("input of shape %v: want 4 axes (num, channels, height, width)", []int(b))
	}
	return nil
}

// inferShapes is LRN's shape rule: the top keeps the bottom's shape.
func (l *LRN) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	if err := checkLRN(c.Bottoms[0]); err != nil {
		return c.Errorf("%w", err)
	}
	c.SameShapes()
	return nil
}

// Reshape shapes the top and the buffers.
func (l *LRN) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if err := checkLRN(b.shape); err != nil {
		return l.errorf("%w", err)
	}
	l.num, l.chans, l.height, l.width = b.Dim(0), b.Dim(1), b.Dim(2), b.Dim(3)
	top[0].ReshapeLike(b)
	hw := l.height * l.width
	// The cross-channel mode works on chunks of at most lrnChunk
	// positions of the planes, whole vectors but for the last.
	parts := max(1, (hw+lrnChunk-1)/lrnChunk)
	l.chunk = max(1, ((hw+parts-1)/parts+15)/16*16)
	for len(l.scratch) < l.workers() {
		l.scratch = append(l.scratch, &lrnScratch{})
	}
	for _, s := range l.scratch[:l.workers()] {
		if l.within {
			s.sq = growFloats(s.sq, hw)
			s.pow = growFloats(s.pow, hw)
		} else {
			s.pow = growFloats(s.pow, l.size*l.chunk)
			s.ratio = growFloats(s.ratio, l.size*l.chunk)
			s.zero = growFloats(s.zero, l.chunk)
			clear(s.zero)
		}
		s.scale = growFloats(s.scale, hw)
		s.accum = growFloats(s.accum, hw)
		s.box = growFloats(s.box, max(hw, 1))
	}
	return nil
}

// workers returns how many goroutines share the images.
func (l *LRN) workers() int { return max(1, min(l.threads(), l.num)) }

// Forward normalises.
func (l *LRN) Forward(bottom, top []*Blob) error {
	l.reluDone = false
	l.x, l.y = bottom[0].DataSlice(), top[0].DataSlice()
	l.runner.run(l.workers(), l.num, l.fwdFn)
	l.x, l.y = nil, nil
	return nil
}

// forwardWorker normalises image n as goroutine w.
func (l *LRN) forwardWorker(w, n int) {
	size := l.chans * l.height * l.width
	l.forwardImage(l.scratch[w], l.x[n*size:(n+1)*size], l.y[n*size:(n+1)*size])
}

// forwardImage normalises one image x into y with the scratch s.
func (l *LRN) forwardImage(s *lrnScratch, x, y []float32) {
	hw := l.height * l.width
	if !l.within {
		for j := 0; j < hw; j += l.chunk {
			l.acrossForward(s, x, y, j, min(j+l.chunk, hw))
		}
		return
	}
	for c := range l.chans {
		sc := l.withinScale(s, x[c*hw:(c+1)*hw])
		p := s.pow[:hw]
		powNeg(p, sc, l.beta, s.box)
		kernel.Mul(y[c*hw:(c+1)*hw], x[c*hw:(c+1)*hw], p)
	}
}

// acrossForward normalises the positions [j0, j1) of every channel plane
// of one image, a channel at a time: the running scale moved on (the
// square of the channel entering the window added, that of the one
// leaving it subtracted, as in Caffe's CPU code), s^−β and the output in
// one pass for β = ¾ (kernel.LRNForward75).
func (l *LRN) acrossForward(s *lrnScratch, x, y []float32, j0, j1 int) {
	l.acrossForwardChans(s, x, y, l.startScale(s, x, j0, j1), j0, j1, 0, l.chans)
}

// acrossForwardChans is acrossForward for the channels [c0, c1), moving
// the running scale sc (startScale's, moved on to channel c0) on past
// them; channel c's output goes to plane c − c0 of y.
func (l *LRN) acrossForwardChans(s *lrnScratch, x, y, sc []float32, j0, j1, c0, c1 int) {
	hw := l.height * l.width
	pre := (l.size - 1) / 2
	aos := l.alpha / float32(l.size)
	for c := c0; c < c1; c++ {
		xc, yc := x[c*hw+j0:c*hw+j1], y[(c-c0)*hw+j0:(c-c0)*hw+j1]
		xin, xout := l.plane(s, x, c+pre, j0, j1), l.plane(s, x, c-1-pre, j0, j1)
		if l.beta == 0.75 {
			kernel.LRNForward75(yc, sc, xc, xin, xout, aos)
			continue
		}
		kernel.LRNScale(sc, xin, xout, aos)
		p := s.pow[:j1-j0]
		powNeg(p, sc, l.beta, s.box)
		kernel.Mul(yc, xc, p)
	}
}

// plane returns the positions [j0, j1) of channel c of the image x, or
// zeros for a channel past the ends.
func (l *LRN) plane(s *lrnScratch, x []float32, c, j0, j1 int) []float32 {
	if c < 0 || c >= l.chans {
		return s.zero[:j1-j0]
	}
	hw := l.height * l.width
	return x[c*hw+j0 : c*hw+j1]
}

// startScale sets the worker's scale buffer to the running scale of the
// positions [j0, j1) just before channel 0's window is complete: k + α/n
// · the squares of channels 0 to pre−1, added one by one as the channels
// enter the window (the zero channels before the first add nothing).
// Moving the window on by one channel (kernel.LRNScale, channel pre
// entering and a zero plane leaving) gives channel 0's scale, and each
// next move the next channel's.
func (l *LRN) startScale(s *lrnScratch, x []float32, j0, j1 int) []float32 {
	sc := s.scale[:j1-j0]
	fillFloats(sc, l.k)
	aos := l.alpha / float32(l.size)
	for ch := range (l.size - 1) / 2 {
		kernel.LRNScale(sc, l.plane(s, x, ch, j0, j1), s.zero[:j1-j0], aos)
	}
	return sc
}

// powNeg sets p[i] = s[i]^−beta for positive s, using scratch (not
// empty) as a buffer. The common exponents take square roots and a
// division (within two units in the last place), the others math.Pow.
func powNeg(p, s []float32, beta float32, scratch []float32) {
	switch beta {
	case 0.5:
		kernel.Sqrt(p, s)
	case 0.75:
		// s^−¾ = 1 / (√s · √√s)
		kernel.Sqrt(p, s)
		for i := 0; i < len(p); i += len(scratch) {
			pb := p[i:min(i+len(scratch), len(p))]
			q := scratch[:len(pb)]
			kernel.Sqrt(q, pb)
			kernel.Mul(pb, pb, q)
		}
	case 1:
		copy(p, s)
	default:
		nb := float64(-beta)
		for i, v := range s {
			p[i] = float32(math.Pow(float64(v), nb))
		}
		return
	}
	// p = 1/p
	fillFloats(scratch, 1)
	for i := 0; i < len(p); i += len(scratch) {
		pb := p[i:min(i+len(scratch), len(p))]
		kernel.Div(pb, scratch[:len(pb)], pb)
	}
}

// withinScale sets the scale of one plane, s = 1 + α/n² · (box sum of x²
// over n×n).
func (l *LRN) withinScale(s *lrnScratch, plane []float32) []float32 {
	hw := l.height * l.width
	inv := l.alpha / float32(l.size*l.size)
	sq := s.sq[:hw]
	kernel.Mul(sq, plane, plane)
	out := s.scale[:hw]
	l.boxSum(s, sq, out)
	for i, v := range out {
		out[i] = 1 + inv*v
	}
	return out
}

// boxSum writes into out the sum of in over the size×size window centred
// on each position, with zeros outside the plane.
func (l *LRN) boxSum(s *lrnScratch, in, out []float32) {
	h, w, pre := l.height, l.width, (l.size-1)/2
	tmp := s.accum
	for r := range h {
		row, t := in[r*w:(r+1)*w], tmp[r*w:(r+1)*w]
		for c := range w {
			var sum float32
			for _, v := range row[max(0, c-pre):min(w, c+pre+1)] {
				sum += v
			}
			t[c] = sum
		}
	}
	for r := range h {
		o := out[r*w : (r+1)*w]
		clear(o)
		for rr := max(0, r-pre); rr < min(h, r+pre+1); rr++ {
			kernel.Add(o, o, tmp[rr*w:(rr+1)*w])
		}
	}
}

// Backward computes the gradient.
func (l *LRN) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	l.x, l.dx = bottom[0].DataSlice(), bottom[0].DiffSlice()
	l.y, l.dy = top[0].DataSlice(), top[0].DiffSlice()
	l.runner.run(l.workers(), l.num, l.bwdFn)
	l.x, l.dx, l.y, l.dy = nil, nil, nil, nil
	l.reluDone = l.reluGrad != nil && !l.within
}

// backwardWorker computes image n's gradient as goroutine w.
func (l *LRN) backwardWorker(w, n int) {
	size := l.chans * l.height * l.width
	i, j := n*size, (n+1)*size
	l.backwardImage(l.scratch[w], l.x[i:j], l.y[i:j], l.dy[i:j], l.dx[i:j])
}

// backwardImage computes one image's gradient dx from its input x,
// output y and output gradient dy with the scratch s.
func (l *LRN) backwardImage(s *lrnScratch, x, y, dy, dx []float32) {
	if l.within {
		l.withinBackward(s, x, y, dy, dx)
		return
	}
	hw := l.height * l.width
	for p := 0; p < hw; p += l.chunk {
		l.acrossBackward(s, x, y, dy, dx, p, min(p+l.chunk, hw))
	}
}

// acrossBackward computes the gradient of the positions [j0, j1) of one
// image, dx = dy·s^−β − 2αβ/n · x · Σ (dy·y/s over the window of
// channels), with a running sum over channels as Caffe's CPU code (and,
// with reluGrad, passes it through the ReLU's gradient). One
// pass over the channels recomputes the scale, s^−β and the ratio dy·y/s
// of the channel pre ahead of the current one into rings of the window's
// n planes, adds the ratio to the running sum, computes the current
// channel's gradient and takes the ratio of the channel leaving the
// window off the sum (kernel.LRNRatio75 and kernel.LRNBackward; for β = ¾
// both in one pass, kernel.LRNStep75, while a channel enters the window).
func (l *LRN) acrossBackward(s *lrnScratch, x, y, dy, dx []float32, j0, j1 int) {
	hw, m := l.height*l.width, j1-j0
	pre := (l.size - 1) / 2
	aos := l.alpha / float32(l.size)
	ratio := 2 * l.alpha * l.beta / float32(l.size)
	acc := s.accum[:m]
	sc := l.startScale(s, x, j0, j1)
	// ring returns the ratio and power planes of channel ch.
	ring := func(ch int) (r, p []float32) {
		i := (ch % l.size) * m
		return s.ratio[i : i+m], s.pow[i : i+m]
	}
	// ratioOf computes the ratio and power planes of channel ch, the next
	// in order, and returns the ratio plane (zeros past the last channel).
	ratioOf := func(ch int) []float32 {
		if ch >= l.chans {
			return s.zero[:m]
		}
		r, p := ring(ch)
		xin, xout := l.plane(s, x, ch+pre, j0, j1), l.plane(s, x, ch-1-pre, j0, j1)
		dyc, yc := dy[ch*hw+j0:ch*hw+j1], y[ch*hw+j0:ch*hw+j1]
		if l.beta == 0.75 {
			kernel.LRNRatio75(r, p, sc, xin, xout, dyc, yc, aos)
		} else {
			kernel.LRNRatio(r, sc, xin, xout, dyc, yc, aos)
			powNeg(p, sc, l.beta, s.box)
		}
		return r
	}
	clear(acc)
	for ch := range pre {
		kernel.Add(acc, acc, ratioOf(ch))
	}
	var slope float32
	if l.reluGrad != nil {
		slope = l.reluGrad.slope
	}
	for c := range l.chans {
		rout := s.zero[:m]
		if c >= pre {
			rout, _ = ring(c - pre)
		}
		_, p := ring(c)
		o := c*hw + j0
		if ch := c + pre; l.beta == 0.75 && pre > 0 && ch < l.chans {
			// ratioOf(ch) and the step below in one pass (the ring's
			// slots of ch are not those of c or c−pre).
			r, pw := ring(ch)
			xin, xout := l.plane(s, x, ch+pre, j0, j1), l.plane(s, x, ch-1-pre, j0, j1)
			q := ch*hw + j0
			if l.topKept {
				kernel.LRNStep75X(sc, xin, xout, dy[q:q+m], x[q:q+m], r, pw, acc, rout, x[o:o+m], dy[o:o+m], p, dx[o:o+m], aos, ratio,
					l.reluGrad != nil, slope)
				continue
			}
			kernel.LRNStep75(sc, xin, xout, dy[q:q+m], y[q:q+m], r, pw, acc, rout, x[o:o+m], dy[o:o+m], p, dx[o:o+m], aos, ratio,
				l.reluGrad != nil, slope)
			continue
		}
		rin := ratioOf(c + pre)
		if l.reluGrad != nil {
			kernel.LRNBackwardReLU(dx[o:o+m], acc, rin, rout, x[o:o+m], dy[o:o+m], p, ratio, slope)
			continue
		}
		kernel.LRNBackward(dx[o:o+m], acc, rin, rout, x[o:o+m], dy[o:o+m], p, ratio)
	}
}

// withinBackward computes one image's dx = dy·s^−β − 2αβ/n² · x ·
// boxsum(dy·y/s).
func (l *LRN) withinBackward(s *lrnScratch, x, y, dy, dx []float32) {
	hw := l.height * l.width
	ratio := 2 * l.alpha * l.beta / float32(l.size*l.size)
	box := s.box[:hw]
	for c := range l.chans {
		off := c * hw
		sc := l.withinScale(s, x[off:off+hw])
		p := s.pow[:hw]
		powNeg(p, sc, l.beta, box)
		t := s.sq[:hw] // free once the scale is computed
		kernel.Mul(t, dy[off:off+hw], y[off:off+hw])
		kernel.Div(t, t, sc)
		l.boxSum(s, t, box)
		kernel.Mul(box, box, x[off:off+hw])
		kernel.Mul(dx[off:off+hw], dy[off:off+hw], p)
		kernel.Axpy(-ratio, box, dx[off:off+hw])
	}
}
