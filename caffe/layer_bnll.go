package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "BNLL", Bottoms: Exactly(1), Tops: Exactly(1), New: newBNLL, Shape: sameShapes})
}

// BNLL is the binomial normal log likelihood, log(1 + e^x), computed
// stably. It cannot run in place.
type BNLL struct{ neuron }

var _ Layer = (*BNLL)(nil)

func newBNLL(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &BNLL{neuron{newLayerBase("BNLL", def, env)}}, nil
}

// Setup also rejects in-place use.
func (l *BNLL) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Forward computes log(1 + e^x).
func (l *BNLL) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		f := float64(v)
		if f > 0 {
			y[i] = float32(f + math.Log(1+math.Exp(-f)))
		} else {
			y[i] = float32(math.Log(1 + math.Exp(f)))
		}
	}
	return nil
}

// bnllThreshold caps the exponent in BNLL's gradient, as Caffe's
// kBNLL_THRESHOLD.
const bnllThreshold = 50

// Backward multiplies by the logistic function of x.
func (l *BNLL) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		e := math.Exp(math.Min(float64(v), bnllThreshold))
		dx[i] = dy[i] * float32(e/(e+1))
	}
}
