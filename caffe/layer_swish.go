package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Swish", Bottoms: Exactly(1), Tops: Exactly(1), New: newSwish, Shape: sameShapes})
}

// Swish is x·sigmoid(beta·x) (swish_param.beta, default 1). It cannot run
// in place.
type Swish struct {
	neuronNotInPlace
	beta float32
}

func newSwish(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Swish{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("Swish", def, env)}}, beta: def.GetSwishParam().GetBeta()}, nil
}

// Forward applies swish.
func (l *Swish) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = v * sigmoid(l.beta*v)
	}
	return nil
}

// Backward multiplies by beta·y + sigmoid(beta·x)·(1 − beta·y).
func (l *Swish) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	dy, dx := top[0].DiffSlice(), bottom[0].DiffSlice()
	y, dy, dx = y[:len(x)], dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		s := sigmoid(l.beta * v)
		by := l.beta * y[i]
		dx[i] = dy[i] * (by + s*(1-by))
	}
}
