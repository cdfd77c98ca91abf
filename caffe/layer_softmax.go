package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Softmax", Bottoms: Exactly(1), Tops: Exactly(1), New: newSoftmax, Shape: ruleOf((*Softmax).inferShapes)})
}

// Softmax normalises exponentials along an axis (softmax_param.axis,
// default 1): y = exp(x − max) / Σ exp(x − max). It may run in place.
type Softmax struct {
	layerBase
	axisParam           int
	outer, chans, inner int
	scale               []float32
}

var _ Layer = (*Softmax)(nil)

func newSoftmax(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Softmax{layerBase: newLayerBase("Softmax", def, env), axisParam: int(def.GetSoftmaxParam().GetAxis())}, nil
}

// Setup checks the blobs and shapes the top.
func (l *Softmax) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// inferShapes is Softmax's shape rule: the top keeps the bottom's shape.
func (l *Softmax) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	if _, err := canonicalAxis("softmax_param.axis", l.axisParam, len(c.Bottoms[0])); err != nil {
		return c.Errorf("%w", err)
	}
	c.SameShapes()
	return nil
}

// Reshape gives the top the bottom's shape.
func (l *Softmax) Reshape(bottom, top []*Blob) error {
	if err := l.reshapeAxis(bottom[0]); err != nil {
		return err
	}
	if top[0] != bottom[0] {
		top[0].ReshapeLike(bottom[0])
	}
	return nil
}

func (l *Softmax) reshapeAxis(b *Blob) error {
	axis, err := canonicalAxis("softmax_param.axis", l.axisParam, b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	l.outer, l.chans, l.inner = b.CountRange(0, axis), b.Dim(axis), b.CountFrom(axis+1)
	if cap(l.scale) < l.inner {
		l.scale = make([]float32, l.inner)
	}
	l.scale = l.scale[:l.inner]
	return nil
}

// Forward computes the softmax.
func (l *Softmax) Forward(bottom, top []*Blob) error {
	softmaxForward(bottom[0].DataSlice(), top[0].DataSlice(), l.outer, l.chans, l.inner, l.scale)
	return nil
}

// softmaxForward computes y = softmax(x) over the channel axis of an
// [outer, chans, inner] array, as Caffe does: subtract the per-position
// maximum, exponentiate, divide by the sum. scale holds inner values. The
// differences are written first and exponentiated together
// (kernel.ExpF32: math.Exp's bits, eight values at once); the sums add
// the channels in order, as one value at a time did.
func softmaxForward(x, y []float32, outer, chans, inner int, scale []float32) {
	dim := chans * inner
	if inner == 1 {
		for i := range outer {
			xi, yi := x[i*dim:(i+1)*dim], y[i*dim:(i+1)*dim]
			mx := xi[0]
			for _, v := range xi {
				mx = max(mx, v)
			}
			for c, v := range xi {
				yi[c] = v - mx
			}
		}
		kernel.ExpF32(y[:outer*dim], y[:outer*dim])
		for i := range outer {
			yi := y[i*dim : (i+1)*dim]
			var sum float32
			for _, e := range yi {
				sum += e
			}
			for c := range yi {
				yi[c] /= sum
			}
		}
		return
	}
	for i := range outer {
		xi, yi := x[i*dim:(i+1)*dim], y[i*dim:(i+1)*dim]
		copy(scale, xi[:inner])
		for c := range chans {
			for k, v := range xi[c*inner : (c+1)*inner] {
				scale[k] = max(scale[k], v)
			}
		}
		for c := range chans {
			row, xr := yi[c*inner:(c+1)*inner], xi[c*inner:(c+1)*inner]
			for k, v := range xr {
				row[k] = v - scale[k]
			}
		}
		kernel.ExpF32(yi, yi)
		clear(scale)
		for c := range chans {
			for k, v := range yi[c*inner : (c+1)*inner] {
				scale[k] += v
			}
		}
		for c := range chans {
			row := yi[c*inner : (c+1)*inner]
			for k := range row {
				row[k] /= scale[k]
			}
		}
	}
}

// Backward computes dx = (dy − Σ_c dy·y) · y.
func (l *Softmax) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dim := l.chans * l.inner
	for i := range l.outer {
		yi, dyi, dxi := y[i*dim:(i+1)*dim], dy[i*dim:(i+1)*dim], dx[i*dim:(i+1)*dim]
		for k := range l.inner {
			var dot float32
			for c := range l.chans {
				j := c*l.inner + k
				dot += dyi[j] * yi[j]
			}
			for c := range l.chans {
				j := c*l.inner + k
				dxi[j] = (dyi[j] - dot) * yi[j]
			}
		}
	}
}
