package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Silence", Bottoms: AtLeast(1), Tops: Exactly(0), New: newSilence, Shape: func(*ShapeContext) error { return nil }})
}

// Silence consumes blobs that nothing else uses, so that they are not net
// outputs. Its bottoms' gradients are zero.
type Silence struct{ layerBase }

var _ Layer = (*Silence)(nil)

func newSilence(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Silence{newLayerBase("Silence", def, env)}, nil
}

// Setup checks the blobs.
func (l *Silence) Setup(bottom, top []*Blob) error {
	return l.checkBlobs(bottom, top)
}

// Reshape does nothing.
func (l *Silence) Reshape(bottom, top []*Blob) error { return nil }

// Forward does nothing.
func (l *Silence) Forward(bottom, top []*Blob) error { return nil }

// Backward zeroes the gradients of the bottoms asked for.
func (l *Silence) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	for i, b := range bottom {
		if i < len(propagateDown) && propagateDown[i] {
			b.ZeroDiff()
		}
	}
}
