package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Log", Bottoms: Exactly(1), Tops: Exactly(1), New: newLog, Shape: sameShapes})
}

// Log is log_base(shift + scale·x) (log_param: base −1 meaning e, scale
// 1, shift 0). It cannot run in place.
type Log struct {
	neuronNotInPlace
	scale, shift, invLogBase float32
}

func newLog(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetLogParam()
	logBase, err := logOfBase("log_param", p.GetBase())
	if err != nil {
		return nil, err
	}
	return &Log{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("Log", def, env)}},
		scale: p.GetScale(), shift: p.GetShift(), invLogBase: float32(1 / logBase)}, nil
}

// Forward takes the logarithm.
func (l *Log) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float32(math.Log(float64(l.shift+l.scale*v))) * l.invLogBase
	}
	return nil
}

// Backward multiplies by scale / ((shift + scale·x)·ln(base)).
func (l *Log) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		dx[i] = dy[i] * l.scale * l.invLogBase / (l.shift + l.scale*v)
	}
}
