package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Clip", Bottoms: Exactly(1), Tops: Exactly(1), New: newClip, Shape: sameShapes})
}

// Clip limits x to [min, max] (clip_param, both required). It cannot run
// in place.
type Clip struct {
	neuronNotInPlace
	min, max float32
}

func newClip(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetClipParam()
	if p == nil || p.Min == nil || p.Max == nil {
		return nil, fmt.Errorf("clip_param needs min and max")
	}
	if !(p.GetMin() <= p.GetMax()) {
		return nil, fmt.Errorf("clip_param: min %g > max %g", p.GetMin(), p.GetMax())
	}
	return &Clip{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("Clip", def, env)}}, min: p.GetMin(), max: p.GetMax()}, nil
}

// Forward clips.
func (l *Clip) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = max(l.min, min(l.max, v))
	}
	return nil
}

// Backward passes the gradient where min <= x <= max.
func (l *Clip) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		if v >= l.min && v <= l.max {
			dx[i] = dy[i]
		} else {
			dx[i] = 0
		}
	}
}
