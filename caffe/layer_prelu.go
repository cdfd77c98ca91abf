package caffe

import (
	"fmt"
	"slices"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "PReLU", Bottoms: Exactly(1), Tops: Exactly(1), New: newPReLU, Shape: ruleOf((*PReLU).inferShapes)})
}

// PReLU is max(0, x) + a·min(0, x) with a learned slope a per channel
// (axis 1), or one shared by all channels (prelu_param.channel_shared;
// filler default constant 0.25). It cannot run in place.
type PReLU struct {
	neuronNotInPlace
	shared bool
	dim    int // values per channel of one sample
}

func newPReLU(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetPreluParam()
	if err := CheckFiller(p.GetFiller()); err != nil {
		return nil, fmt.Errorf("prelu_param.filler: %w", err)
	}
	return &PReLU{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("PReLU", def, env)}}, shared: p.GetChannelShared()}, nil
}

// slopeShape is the shape of the slopes for a bottom of shape b: one slope
// per channel, or a scalar (Caffe's shape for channel_shared).
func (l *PReLU) slopeShape(b []int) ([]int, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("needs a bottom of at least 2 axes, got %v", b)
	}
	if l.shared {
		return []int{}, nil
	}
	return []int{b[1]}, nil
}

// inferShapes is PReLU's shape rule.
func (l *PReLU) inferShapes(c *ShapeContext) error {
	c.Params = []Shape{nil}
	if l.shared {
		c.Params[0] = Shape{}
	}
	if !c.Known() {
		return nil
	}
	s, err := l.slopeShape(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Params[0] = s
	c.SameShapes()
	return nil
}

// Setup creates the slopes.
func (l *PReLU) Setup(bottom, top []*Blob) error {
	if err := l.neuronNotInPlace.Setup(bottom, top); err != nil {
		return err
	}
	shape, err := l.slopeShape(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	filler := defaultFiller(l.def.GetPreluParam().GetFiller(), 0.25)
	rng := l.fillRNG()
	if err := l.initParams([][]int{shape}, func(_ int, b *Blob) error { return FillBlob(b, filler, rng) }); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks the channel count against the slopes.
func (l *PReLU) Reshape(bottom, top []*Blob) error {
	shape, err := l.slopeShape(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	if len(l.blobs) == 1 && !slices.Equal(l.blobs[0].shape, shape) {
		return l.errorf("bottom %v needs slopes of shape %v, the layer has %v", bottom[0].shape, shape, l.blobs[0].shape)
	}
	l.dim = bottom[0].Count() / max(1, bottom[0].Dim(0)*bottom[0].Dim(1))
	return l.neuron.Reshape(bottom, top)
}

// planes calls fn for every run of values that share one slope: each
// channel plane of each sample, with the index of its slope.
func (l *PReLU) planes(n int, channels int, fn func(lo, hi, slope int)) {
	for i, p := 0, 0; i < n; i, p = i+l.dim, p+1 {
		s := 0
		if !l.shared {
			s = p % channels
		}
		fn(i, i+l.dim, s)
	}
}

// Forward applies the leaky rectifier with the learned slopes.
func (l *PReLU) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	a := l.blobs[0].DataSlice()
	y = y[:len(x)]
	l.planes(len(x), bottom[0].Dim(1), func(lo, hi, s int) {
		slope := a[s]
		for i, v := range x[lo:hi] {
			if v <= 0 {
				v *= slope
			}
			y[lo+i] = v
		}
	})
	return nil
}

// Backward accumulates the slopes' gradient (sum of dy·x where x <= 0)
// and passes dy, scaled by the slope where x <= 0, to the bottom.
func (l *PReLU) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	x, dy := bottom[0].DataSlice(), top[0].DiffSlice()
	dy = dy[:len(x)]
	c := bottom[0].Dim(1)
	if l.paramGrad(0) {
		da := l.blobs[0].DiffSlice()
		l.planes(len(x), c, func(lo, hi, s int) {
			var sum float32
			for i, v := range x[lo:hi] {
				if v <= 0 {
					sum += dy[lo+i] * v
				}
			}
			da[s] += sum
		})
	}
	if !wantDown(propagateDown) {
		return
	}
	a, dx := l.blobs[0].DataSlice(), bottom[0].DiffSlice()
	dx = dx[:len(x)]
	l.planes(len(x), c, func(lo, hi, s int) {
		slope := a[s]
		for i, v := range x[lo:hi] {
			if v > 0 {
				dx[lo+i] = dy[lo+i]
			} else {
				dx[lo+i] = dy[lo+i] * slope
			}
		}
	})
}
