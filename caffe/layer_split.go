package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Split", Bottoms: Exactly(1), Tops: AtLeast(1), New: newSplit, Shape: sameShapes})
}

// Split hands its bottom to several consumers: every top shares the
// bottom's values, and the bottom's gradient is the sum of the tops'.
// Nets insert it where a blob feeds more than one layer.
type Split struct{ layerBase }

var _ Layer = (*Split)(nil)

func newSplit(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Split{newLayerBase("Split", def, env)}, nil
}

// Setup checks the blobs and shapes the tops.
func (l *Split) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	for i, t := range top {
		if t == bottom[0] {
			return l.errorf("cannot compute in place (top %d is the bottom)", i)
		}
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the tops as the bottom and shares its values.
func (l *Split) Reshape(bottom, top []*Blob) error {
	for _, t := range top {
		t.ReshapeLike(bottom[0])
		t.ShareData(bottom[0])
	}
	return nil
}

// Forward shares the bottom's values with the tops again (in case the
// bottom's storage moved).
func (l *Split) Forward(bottom, top []*Blob) error {
	for _, t := range top {
		t.ShareData(bottom[0])
	}
	return nil
}

// Backward sums the tops' gradients.
func (l *Split) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dx := bottom[0].DiffSlice()
	if len(top) == 1 {
		copy(dx, top[0].DiffSlice())
		return
	}
	kernel.Add(dx, top[0].DiffSlice(), top[1].DiffSlice())
	for _, t := range top[2:] {
		kernel.Add(dx, dx, t.DiffSlice())
	}
}
