package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "EuclideanLoss", Bottoms: Exactly(2), Tops: Exactly(1), Loss: true, New: newEuclideanLoss,
		Shape: func(c *ShapeContext) error { return lossShapes(c, checkEuclidean) }})
}

// EuclideanLoss is Σ (a − b)² / (2N) over two bottoms of the same size,
// N being the first dimension. Both bottoms get gradients.
type EuclideanLoss struct {
	layerBase
	diff []float32
}

var _ ForceBackwardLimiter = (*EuclideanLoss)(nil)

func newEuclideanLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &EuclideanLoss{layerBase: newLayerBase("EuclideanLoss", def, env)}, nil
}

// AllowForceBackward is true for both bottoms.
func (l *EuclideanLoss) AllowForceBackward(bottom int) bool { return true }

// Setup checks the blobs and shapes the loss.
func (l *EuclideanLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the bottoms agree.
func (l *EuclideanLoss) Reshape(bottom, top []*Blob) error {
	if err := reshapeLoss(&l.layerBase, bottom, top, checkEuclidean); err != nil {
		return err
	}
	l.diff = growFloats(l.diff, bottom[0].Count())
	return nil
}

// checkEuclidean checks that the two bottoms have one batch of items of
// the same size.
func checkEuclidean(bottoms []Shape) error {
	if err := checkFirstDims(bottoms); err != nil {
		return err
	}
	a, b := bottoms[0], bottoms[1]
	if a.count(1, len(a)) != b.count(1, len(b)) {
		return fmt.Errorf("inputs of shapes %v and %v must have the same dimension", []int(a), []int(b))
	}
	return nil
}

// Forward computes the loss.
func (l *EuclideanLoss) Forward(bottom, top []*Blob) error {
	a, b := bottom[0].DataSlice(), bottom[1].DataSlice()
	for i, v := range a {
		l.diff[i] = v - b[i]
	}
	dot := kernel.Dot(l.diff, l.diff)
	top[0].DataSlice()[0] = dot / float32(bottom[0].Dim(0)) / 2
	return nil
}

// Backward computes ±(a − b) · loss weight / N.
func (l *EuclideanLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	for i := range 2 {
		if i >= len(propagateDown) || !propagateDown[i] {
			continue
		}
		sign := float32(1)
		if i == 1 {
			sign = -1
		}
		alpha := sign * top[0].DiffSlice()[0] / float32(bottom[i].Dim(0))
		dx := bottom[i].DiffSlice()
		for j, v := range l.diff {
			dx[j] = alpha * v
		}
	}
}
