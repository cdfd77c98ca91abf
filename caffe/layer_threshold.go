package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Threshold", Bottoms: Exactly(1), Tops: Exactly(1), New: newThreshold, Shape: sameShapes})
}

// Threshold is 1 where x > threshold and 0 elsewhere
// (threshold_param.threshold, default 0). Its gradient is zero wherever
// it exists; Caffe does not implement one, and neither is one passed
// here: Backward leaves zeros. It may run in place.
type Threshold struct {
	neuron
	threshold float32
}

func newThreshold(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Threshold{neuron: neuron{newLayerBase("Threshold", def, env)}, threshold: def.GetThresholdParam().GetThreshold()}, nil
}

// Forward thresholds.
func (l *Threshold) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		if v > l.threshold {
			y[i] = 1
		} else {
			y[i] = 0
		}
	}
	return nil
}

// Backward writes zeros.
func (l *Threshold) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if wantDown(propagateDown) {
		clear(bottom[0].DiffSlice())
	}
}
