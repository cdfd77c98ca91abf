package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "ELU", Bottoms: Exactly(1), Tops: Exactly(1), New: newELU, Shape: sameShapes})
}

// ELU is x for x > 0 and alpha·(e^x − 1) otherwise (elu_param.alpha,
// default 1). It may run in place.
type ELU struct {
	neuron
	alpha float32
}

func newELU(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &ELU{neuron: neuron{newLayerBase("ELU", def, env)}, alpha: def.GetEluParam().GetAlpha()}, nil
}

// Forward applies the exponential linear unit.
func (l *ELU) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		if v <= 0 {
			v = l.alpha * float32(math.Expm1(float64(v)))
		}
		y[i] = v
	}
	return nil
}

// Backward passes dy where the output is positive, and dy·(y + alpha)
// elsewhere (Caffe's form, which holds in place too).
func (l *ELU) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	x := bottom[0].DataSlice()
	dy, dx, x = dy[:len(y)], dx[:len(y)], x[:len(y)]
	for i, v := range x {
		if v > 0 {
			dx[i] = dy[i]
		} else {
			dx[i] = dy[i] * (y[i] + l.alpha)
		}
	}
}
