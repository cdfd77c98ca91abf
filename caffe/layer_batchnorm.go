package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "BatchNorm", Bottoms: Exactly(1), Tops: Exactly(1), NotLearned: true,
		New: newBatchNorm, Shape: ruleOf((*BatchNorm).inferShapes)})
}

// BatchNorm normalises each channel (axis 1) to zero mean and unit
// variance: y = (x − mean) / sqrt(var + eps). With batch statistics (the
// TRAIN default) mean and the biased variance come from the batch over N
// and the spatial axes, and the layer's three state blobs are updated as
// Caffe's: [2] ← [2]·f + 1, [0] ← mean + f·[0], [1] ← m/(m−1)·var + f·[1],
// with f = moving_average_fraction and m = count/channels. With global
// statistics (use_global_stats, the TEST default) mean = [0]/[2] and
// var = [1]/[2] (0 when [2] is 0). The state blobs are not learned: nets
// give them lr_mult 0. There is no scale or shift; follow the layer with
// Scale (bias_term: true). It may run in place.
type BatchNorm struct {
	layerBase
	global   bool
	fraction float32
	eps      float32
	chans    int
	num      int
	spatial  int
	mean     []float32
	std      []float32
	xnorm    []float32
	sums     []float32
}

var _ Layer = (*BatchNorm)(nil)

func newBatchNorm(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetBatchNormParam())
	l := &BatchNorm{
		layerBase: newLayerBase("BatchNorm", def, env),
		fraction:  p.GetMovingAverageFraction(),
		eps:       p.GetEps(),
	}
	l.global = !l.train()
	if p.UseGlobalStats != nil {
		l.global = p.GetUseGlobalStats()
	}
	return l, nil
}

// channels returns the number of channels of an input of shape b: its
// axis 1, or 1 for a one-axis input.
func (l *BatchNorm) channels(b Shape) (int, error) {
	switch len(b) {
	case 0:
		return 0, fmt.Errorf("input is a scalar; it needs at least one axis")
	case 1:
		return 1, nil
	}
	return b[1], nil
}

// inferShapes is BatchNorm's shape rule: the top keeps the bottom's shape;
// the statistics are a mean and a variance per channel and a scale factor.
func (l *BatchNorm) inferShapes(c *ShapeContext) error {
	c.Params = []Shape{nil, nil, {1}}
	if !c.Known() {
		return nil
	}
	ch, err := l.channels(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Params[0], c.Params[1] = Shape{ch}, Shape{ch}
	c.SameShapes()
	return nil
}

// Setup creates the three state blobs (zero) and shapes the top.
func (l *BatchNorm) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	ch, err := l.channels(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.chans = ch
	if err := l.initParams([][]int{{l.chans}, {l.chans}, {1}}, func(int, *Blob) error { return nil }); err != nil {
		return err
	}
	l.mean = make([]float32, l.chans)
	l.std = make([]float32, l.chans)
	l.sums = make([]float32, l.chans)
	return l.Reshape(bottom, top)
}

// Reshape shapes the top and the buffers.
func (l *BatchNorm) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	ch, err := l.channels(b.shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	if ch != l.chans {
		return l.errorf("input of shape %v: want %d channels on axis 1", b.shape, l.chans)
	}
	if top[0] != b {
		top[0].ReshapeLike(b)
	}
	l.num = b.Dim(0)
	l.spatial = 0
	if l.num*l.chans > 0 {
		l.spatial = b.Count() / (l.num * l.chans)
	}
	l.xnorm = growFloats(l.xnorm, b.Count())
	return nil
}

// Forward normalises and, with batch statistics, updates the state.
func (l *BatchNorm) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	c, sp := l.chans, l.spatial
	if l.global {
		s := l.blobs[2].DataSlice()[0]
		f := float32(0)
		if s != 0 {
			f = 1 / s
		}
		m, v := l.blobs[0].DataSlice(), l.blobs[1].DataSlice()
		for j := range c {
			l.mean[j] = f * m[j]
			l.std[j] = f * v[j]
		}
	} else {
		inv := 1 / float32(l.num*sp)
		clear(l.sums)
		for n := range l.num {
			for j := range c {
				var s float32
				for _, v := range x[(n*c+j)*sp : (n*c+j+1)*sp] {
					s += v
				}
				l.sums[j] += s
			}
		}
		for j := range c {
			l.mean[j] = inv * l.sums[j]
		}
		clear(l.sums)
		for n := range l.num {
			for j := range c {
				m := l.mean[j]
				var s float32
				for _, v := range x[(n*c+j)*sp : (n*c+j+1)*sp] {
					d := v - m
					s += d * d
				}
				l.sums[j] += s
			}
		}
		for j := range c {
			l.std[j] = inv * l.sums[j]
		}
		st := l.blobs[2].DataSlice()
		st[0] = st[0]*l.fraction + 1
		rm, rv := l.blobs[0].DataSlice(), l.blobs[1].DataSlice()
		m := l.num * sp
		corr := float32(1)
		if m > 1 {
			corr = float32(m) / float32(m-1)
		}
		for j := range c {
			rm[j] = l.mean[j] + l.fraction*rm[j]
			rv[j] = corr*l.std[j] + l.fraction*rv[j]
		}
	}
	for j := range c {
		l.std[j] = float32(math.Sqrt(float64(l.std[j] + l.eps)))
	}
	for n := range l.num {
		for j := range c {
			m, s := l.mean[j], l.std[j]
			off := (n*c + j) * sp
			xr, yr, zr := x[off:off+sp], y[off:off+sp], l.xnorm[off:off+sp]
			for i, v := range xr {
				o := (v - m) / s
				yr[i] = o
				zr[i] = o
			}
		}
	}
	return nil
}

// Backward computes dx = (dy − mean(dy) − mean(dy·y)·y) / std with batch
// statistics, and dy / std with global ones.
func (l *BatchNorm) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dy, dx := top[0].DiffSlice(), bottom[0].DiffSlice()
	c, sp := l.chans, l.spatial
	if l.global {
		for n := range l.num {
			for j := range c {
				off := (n*c + j) * sp
				s := l.std[j]
				for i, g := range dy[off : off+sp] {
					dx[off+i] = g / s
				}
			}
		}
		return
	}
	// Per channel: a = Σ dy·y and b = Σ dy over N and space.
	a, b := l.mean, l.sums // mean is no longer needed
	clear(a)
	clear(b)
	for n := range l.num {
		for j := range c {
			off := (n*c + j) * sp
			var sa, sb float32
			for i, g := range dy[off : off+sp] {
				sa += g * l.xnorm[off+i]
				sb += g
			}
			a[j] += sa
			b[j] += sb
		}
	}
	inv := 1 / float32(l.num*sp)
	for n := range l.num {
		for j := range c {
			off := (n*c + j) * sp
			s, aj, bj := l.std[j], a[j], b[j]
			for i, g := range dy[off : off+sp] {
				yv := l.xnorm[off+i]
				dx[off+i] = (g - inv*(bj+yv*aj)) / s
			}
		}
	}
}
