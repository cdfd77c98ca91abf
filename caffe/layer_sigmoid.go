package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Sigmoid", Bottoms: Exactly(1), Tops: Exactly(1), New: newSigmoid, Shape: sameShapes})
}

// Sigmoid is 1/(1+e^−x), computed as 0.5·tanh(0.5x) + 0.5 as Caffe does.
// It may run in place.
type Sigmoid struct{ neuron }

var _ Layer = (*Sigmoid)(nil)

func newSigmoid(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Sigmoid{neuron{newLayerBase("Sigmoid", def, env)}}, nil
}

func sigmoid(x float32) float32 { return float32(0.5*math.Tanh(0.5*float64(x)) + 0.5) }

// Forward applies the logistic function.
func (l *Sigmoid) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = sigmoid(v)
	}
	return nil
}

// Backward uses y(1−y) from the output.
func (l *Sigmoid) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		dx[i] = dy[i] * v * (1 - v)
	}
}
