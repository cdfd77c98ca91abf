package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "AbsVal", Bottoms: Exactly(1), Tops: Exactly(1), New: newAbsVal, Shape: sameShapes})
}

// AbsVal is |x|. It cannot run in place (its gradient needs the input's
// sign).
type AbsVal struct{ neuron }

var _ Layer = (*AbsVal)(nil)

func newAbsVal(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &AbsVal{neuron{newLayerBase("AbsVal", def, env)}}, nil
}

// Setup also rejects in-place use.
func (l *AbsVal) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Forward takes absolute values.
func (l *AbsVal) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float32(math.Abs(float64(v)))
	}
	return nil
}

// Backward multiplies by sign(x) (0 at 0).
func (l *AbsVal) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		switch {
		case v > 0:
			dx[i] = dy[i]
		case v < 0:
			dx[i] = -dy[i]
		default:
			dx[i] = 0
		}
	}
}
