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
// in the cache from the sums to the output. Forward keeps s^−β for
// Backward, which recomputes s (cheaper than storing it); with several
// threads the images are shared out among them.
type LRN struct {
	layerBase
	size               int
	alpha, beta, k     float32
	within             bool
	num, chans, height int
	width              int
	pow                []float32 // s^−β for every input value
	scratch            []*lrnScratch

	// The current call, for the workers.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
	x, y, dx, dy []float32
}

// lrnScratch is one worker's buffers.
type lrnScratch struct {
	sq    []float32 // ACROSS: the squares of n+1 channels, a ring; WITHIN: one plane
	scale []float32 // H·W: s of the current plane
	ratio []float32 // ACROSS: (C+n−1)·H·W, dy·y/s of an image with zero planes around
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
	l.pow = growFloats(l.pow, b.Count())
	for len(l.scratch) < l.workers() {
		l.scratch = append(l.scratch, &lrnScratch{})
	}
	for _, s := range l.scratch[:l.workers()] {
		if l.within {
			s.sq = growFloats(s.sq, hw)
		} else {
			s.sq = growFloats(s.sq, (l.size+1)*hw)
			s.ratio = growFloats(s.ratio, (l.chans+l.size-1)*hw)
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
	l.x, l.y = bottom[0].DataSlice(), top[0].DataSlice()
	l.runner.run(l.workers(), l.num, l.fwdFn)
	l.x, l.y = nil, nil
	return nil
}

// forwardWorker normalises image n as goroutine w.
func (l *LRN) forwardWorker(w, n int) {
	s := l.scratch[w]
	hw := l.height * l.width
	size := l.chans * hw
	x := l.x[n*size : (n+1)*size]
	for c := range l.chans {
		sc := l.planeScale(s, x, c)
		p := l.pow[n*size+c*hw : n*size+(c+1)*hw]
		powNeg(p, sc, l.beta, s.box)
		kernel.Mul(l.y[n*size+c*hw:n*size+(c+1)*hw], x[c*hw:(c+1)*hw], p)
	}
}

// planeScale returns the scale s of channel c of the image x, in the
// worker's scale buffer; the channels of an image must come in order.
func (l *LRN) planeScale(s *lrnScratch, x []float32, c int) []float32 {
	if l.within {
		l.withinScale(s, x[c*l.height*l.width:(c+1)*l.height*l.width])
	} else {
		l.acrossScale(s, x, c)
	}
	return s.scale
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

// acrossScale updates the scale to channel c's, as Caffe's CPU code
// computes it: channel 0's window summed, then each next channel's scale
// from the previous one by adding the square of the channel entering the
// window and subtracting that of the one leaving it. The squares are kept
// in a ring of n+1 planes, so that the entering channel's square does not
// overwrite the leaving one's.
func (l *LRN) acrossScale(s *lrnScratch, x []float32, c int) {
	hw := l.height * l.width
	pre := (l.size - 1) / 2
	aos := l.alpha / float32(l.size)
	slots := l.size + 1
	// ring returns the plane of the ring for channel ch.
	ring := func(ch int) []float32 {
		i := (ch%slots + slots) % slots
		return s.sq[i*hw : (i+1)*hw]
	}
	// square fills the ring plane of channel ch (zero past the ends).
	square := func(ch int) []float32 {
		r := ring(ch)
		if ch < 0 || ch >= l.chans {
			clear(r)
		} else {
			kernel.Mul(r, x[ch*hw:(ch+1)*hw], x[ch*hw:(ch+1)*hw])
		}
		return r
	}
	sc := s.scale[:hw]
	if c == 0 {
		fillFloats(sc, l.k)
		for ch := -pre; ch <= pre; ch++ {
			kernel.Axpy(aos, square(ch), sc)
		}
		return
	}
	kernel.Axpy(aos, square(c+pre), sc)
	kernel.Axpy(-aos, ring(c-1-pre), sc)
}

// withinScale sets the scale of one plane, s = 1 + α/n² · (box sum of x²
// over n×n).
func (l *LRN) withinScale(s *lrnScratch, plane []float32) {
	hw := l.height * l.width
	inv := l.alpha / float32(l.size*l.size)
	sq := s.sq[:hw]
	kernel.Mul(sq, plane, plane)
	out := s.scale[:hw]
	l.boxSum(s, sq, out)
	for i, v := range out {
		out[i] = 1 + inv*v
	}
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
}

// backwardWorker computes image n's gradient as goroutine w.
func (l *LRN) backwardWorker(w, n int) {
	s := l.scratch[w]
	size := l.chans * l.height * l.width
	i, j := n*size, (n+1)*size
	if l.within {
		l.withinBackward(s, l.x[i:j], l.y[i:j], l.dy[i:j], l.dx[i:j], l.pow[i:j])
	} else {
		l.acrossBackward(s, l.x[i:j], l.y[i:j], l.dy[i:j], l.dx[i:j], l.pow[i:j])
	}
}

// acrossBackward computes one image's dx = dy·s^−β − 2αβ/n · x · Σ (dy·y/s
// over the window of channels), with a running sum over channels as
// Caffe's CPU code.
func (l *LRN) acrossBackward(s *lrnScratch, x, y, dy, dx, pow []float32) {
	hw := l.height * l.width
	pre := l.size - (l.size+1)/2
	ratio := 2 * l.alpha * l.beta / float32(l.size)
	padded, acc, t := s.ratio, s.accum[:hw], s.box[:hw]
	clear(padded[:pre*hw])
	clear(padded[(pre+l.chans)*hw:])
	for c := range l.chans {
		sc := l.planeScale(s, x, c)
		mid := padded[(pre+c)*hw : (pre+c+1)*hw]
		kernel.Mul(mid, dy[c*hw:(c+1)*hw], y[c*hw:(c+1)*hw])
		kernel.Div(mid, mid, sc)
	}
	clear(acc)
	for c := range l.size - 1 {
		kernel.Add(acc, acc, padded[c*hw:(c+1)*hw])
	}
	for c := range l.chans {
		kernel.Add(acc, acc, padded[(c+l.size-1)*hw:(c+l.size)*hw])
		dxc := dx[c*hw : (c+1)*hw]
		kernel.Mul(dxc, dy[c*hw:(c+1)*hw], pow[c*hw:(c+1)*hw])
		// dx −= ratio · (x · acc), with x·acc rounded first as in Caffe.
		kernel.Mul(t, x[c*hw:(c+1)*hw], acc)
		kernel.Axpy(-ratio, t, dxc)
		kernel.Axpy(-1, padded[c*hw:(c+1)*hw], acc)
	}
}

// withinBackward computes one image's dx = dy·s^−β − 2αβ/n² · x ·
// boxsum(dy·y/s).
func (l *LRN) withinBackward(s *lrnScratch, x, y, dy, dx, pow []float32) {
	hw := l.height * l.width
	ratio := 2 * l.alpha * l.beta / float32(l.size*l.size)
	box := s.box[:hw]
	for c := range l.chans {
		off := c * hw
		sc := l.planeScale(s, x, c)
		t := s.sq[:hw] // free once the scale is computed
		kernel.Mul(t, dy[off:off+hw], y[off:off+hw])
		kernel.Div(t, t, sc)
		l.boxSum(s, t, box)
		kernel.Mul(box, box, x[off:off+hw])
		kernel.Mul(dx[off:off+hw], dy[off:off+hw], pow[off:off+hw])
		kernel.Axpy(-ratio, box, dx[off:off+hw])
	}
}
