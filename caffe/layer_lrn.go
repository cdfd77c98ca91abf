package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() { registerComputed("LRN", newLRN) }

// LRN is local response normalisation over a 4-D bottom, y = x·s^−β.
// ACROSS_CHANNELS (the default): s = k + α/n · Σ x² over the n channels
// centred on x's (channels past the ends count as zero). WITHIN_CHANNEL:
// s = 1 + α/n² · Σ x² over the n×n zero-padded spatial window centred on
// x (k is not used, as in Caffe, which builds this mode from pooling and
// power layers). n is local_size and must be odd.
type LRN struct {
	layerBase
	size               int
	alpha, beta, k     float32
	within             bool
	num, chans, height int
	width              int
	scale              []float32 // s for every input value
	padded             []float32 // ACROSS: (C+n−1)·H·W; WITHIN: H·W
	accum              []float32 // H·W
	box                []float32 // WITHIN: H·W
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
	return l, nil
}

// Setup checks the blobs and shapes the top.
func (l *LRN) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the top and the buffers.
func (l *LRN) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if b.NumAxes() != 4 {
		return l.errorf("input of shape %v: want 4 axes (num, channels, height, width)", b.shape)
	}
	l.num, l.chans, l.height, l.width = b.Dim(0), b.Dim(1), b.Dim(2), b.Dim(3)
	top[0].ReshapeLike(b)
	hw := l.height * l.width
	l.scale = growFloats(l.scale, b.Count())
	if l.within {
		l.padded = growFloats(l.padded, hw)
		l.box = growFloats(l.box, hw)
	} else {
		l.padded = growFloats(l.padded, (l.chans+l.size-1)*hw)
	}
	l.accum = growFloats(l.accum, hw)
	return nil
}

// Forward normalises.
func (l *LRN) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	if l.within {
		l.withinForward(x)
	} else {
		l.acrossForward(x)
	}
	nb := float64(-l.beta)
	for i, v := range x {
		y[i] = v * float32(math.Pow(float64(l.scale[i]), nb))
	}
	return nil
}

// acrossForward computes the scale with a running sum over channels, as
// Caffe's CPU code does.
func (l *LRN) acrossForward(x []float32) {
	hw := l.height * l.width
	pre := (l.size - 1) / 2
	aos := l.alpha / float32(l.size)
	clear(l.padded)
	fillFloats(l.scale, l.k)
	for n := range l.num {
		img := x[n*l.chans*hw : (n+1)*l.chans*hw]
		sq := l.padded[pre*hw : (pre+l.chans)*hw]
		for i, v := range img {
			sq[i] = v * v
		}
		s := l.scale[n*l.chans*hw : (n+1)*l.chans*hw]
		first := s[:hw]
		for c := range l.size {
			for i, v := range l.padded[c*hw : (c+1)*hw] {
				first[i] += aos * v
			}
		}
		for c := 1; c < l.chans; c++ {
			cur, prev := s[c*hw:(c+1)*hw], s[(c-1)*hw:c*hw]
			head := l.padded[(c+l.size-1)*hw : (c+l.size)*hw]
			tail := l.padded[(c-1)*hw : c*hw]
			for i := range cur {
				cur[i] = prev[i] + aos*head[i] - aos*tail[i]
			}
		}
	}
}

// withinForward computes s = 1 + α/n² · (box sum of x² over n×n).
func (l *LRN) withinForward(x []float32) {
	hw := l.height * l.width
	inv := l.alpha / float32(l.size*l.size)
	for p := range l.num * l.chans {
		plane := x[p*hw : (p+1)*hw]
		sq := l.padded
		for i, v := range plane {
			sq[i] = v * v
		}
		s := l.scale[p*hw : (p+1)*hw]
		l.boxSum(sq, s)
		for i, v := range s {
			s[i] = 1 + inv*v
		}
	}
}

// boxSum writes into out the sum of in over the size×size window centred
// on each position, with zeros outside the plane.
func (l *LRN) boxSum(in, out []float32) {
	h, w, pre := l.height, l.width, (l.size-1)/2
	tmp := l.accum
	for r := range h {
		row, t := in[r*w:(r+1)*w], tmp[r*w:(r+1)*w]
		for c := range w {
			var s float32
			for _, v := range row[max(0, c-pre):min(w, c+pre+1)] {
				s += v
			}
			t[c] = s
		}
	}
	for r := range h {
		o := out[r*w : (r+1)*w]
		clear(o)
		for rr := max(0, r-pre); rr < min(h, r+pre+1); rr++ {
			for c, v := range tmp[rr*w : (rr+1)*w] {
				o[c] += v
			}
		}
	}
}

// Backward computes the gradient.
func (l *LRN) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dx := bottom[0].DataSlice(), bottom[0].DiffSlice()
	y, dy := top[0].DataSlice(), top[0].DiffSlice()
	nb := float64(-l.beta)
	for i, s := range l.scale[:len(x)] {
		dx[i] = dy[i] * float32(math.Pow(float64(s), nb))
	}
	if l.within {
		l.withinBackward(x, y, dy, dx)
	} else {
		l.acrossBackward(x, y, dy, dx)
	}
}

func (l *LRN) acrossBackward(x, y, dy, dx []float32) {
	hw := l.height * l.width
	pre := l.size - (l.size+1)/2
	ratio := 2 * l.alpha * l.beta / float32(l.size)
	clear(l.padded)
	for n := range l.num {
		off := n * l.chans * hw
		mid := l.padded[pre*hw : (pre+l.chans)*hw]
		for i := range mid {
			mid[i] = dy[off+i] * y[off+i] / l.scale[off+i]
		}
		acc := l.accum[:hw]
		clear(acc)
		for c := range l.size - 1 {
			for i, v := range l.padded[c*hw : (c+1)*hw] {
				acc[i] += v
			}
		}
		for c := range l.chans {
			head := l.padded[(c+l.size-1)*hw : (c+l.size)*hw]
			for i, v := range head {
				acc[i] += v
			}
			xc, dxc := x[off+c*hw:off+(c+1)*hw], dx[off+c*hw:off+(c+1)*hw]
			for i, v := range xc {
				dxc[i] -= ratio * (v * acc[i])
			}
			tail := l.padded[c*hw : (c+1)*hw]
			for i, v := range tail {
				acc[i] -= v
			}
		}
	}
}

// withinBackward adds −2αβ/n² · x · boxsum(dy·y/s) to dx.
func (l *LRN) withinBackward(x, y, dy, dx []float32) {
	hw := l.height * l.width
	ratio := 2 * l.alpha * l.beta / float32(l.size*l.size)
	t, box := l.padded[:hw], l.box[:hw]
	for p := range l.num * l.chans {
		off := p * hw
		for i := range t {
			t[i] = dy[off+i] * y[off+i] / l.scale[off+i]
		}
		l.boxSum(t, box)
		xp, dxp := x[off:off+hw], dx[off:off+hw]
		for i, v := range xp {
			dxp[i] -= ratio * (v * box[i])
		}
	}
}
