package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "TanH", Bottoms: Exactly(1), Tops: Exactly(1), New: newTanH, Shape: sameShapes})
}

// TanH is the hyperbolic tangent. It may run in place.
type TanH struct{ neuron }

var _ Layer = (*TanH)(nil)

func newTanH(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &TanH{neuron{newLayerBase("TanH", def, env)}}, nil
}

// Forward applies tanh.
func (l *TanH) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float32(math.Tanh(float64(v)))
	}
	return nil
}

// Backward uses 1 − y² from the output.
func (l *TanH) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		dx[i] = dy[i] * (1 - v*v)
	}
}
