package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Exp", Bottoms: Exactly(1), Tops: Exactly(1), New: newExp, Shape: sameShapes})
}

// Exp is base^(shift + scale·x) (exp_param: base −1 meaning e, scale 1,
// shift 0). It may run in place.
type Exp struct {
	neuron
	inner, outer float32 // y = outer·e^(inner·x)
}

func newExp(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetExpParam()
	logBase, err := logOfBase("exp_param", p.GetBase())
	if err != nil {
		return nil, err
	}
	return &Exp{neuron: neuron{newLayerBase("Exp", def, env)},
		inner: float32(logBase * float64(p.GetScale())),
		outer: float32(math.Exp(logBase * float64(p.GetShift())))}, nil
}

// logOfBase returns ln(base), with −1 standing for e; other bases must be
// positive.
func logOfBase(param string, base float32) (float64, error) {
	if base == -1 {
		return 1, nil
	}
	if !(base > 0) {
		return 0, fmt.Errorf("%s.base = %g: want a positive base, or -1 for e", param, base)
	}
	return math.Log(float64(base)), nil
}

// Forward exponentiates.
func (l *Exp) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = l.outer * float32(math.Exp(float64(l.inner*v)))
	}
	return nil
}

// Backward multiplies by inner·y.
func (l *Exp) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		dx[i] = dy[i] * v * l.inner
	}
}
