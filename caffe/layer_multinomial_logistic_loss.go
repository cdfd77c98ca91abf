package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "MultinomialLogisticLoss", Bottoms: Exactly(2), Tops: Exactly(1), Loss: true, New: newMultinomialLogisticLoss,
		Shape: func(c *ShapeContext) error { return lossShapes(c, checkSampleLabels) }})
}

// MultinomialLogisticLoss is −Σ log(p[label]) / N over probabilities
// (bottom 0, N×K…) and labels (bottom 1), with p clamped to at least
// 1e−20 as in Caffe. The probabilities get the gradient.
type MultinomialLogisticLoss struct {
	layerBase
	scoreLoss
}

var _ ForceBackwardLimiter = (*MultinomialLogisticLoss)(nil)

func newMultinomialLogisticLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &MultinomialLogisticLoss{layerBase: newLayerBase("MultinomialLogisticLoss", def, env)}, nil
}

// Setup checks the blobs.
func (l *MultinomialLogisticLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks one label per sample.
func (l *MultinomialLogisticLoss) Reshape(bottom, top []*Blob) error {
	return reshapeLoss(&l.layerBase, bottom, top, checkSampleLabels)
}

// Forward computes the loss.
func (l *MultinomialLogisticLoss) Forward(bottom, top []*Blob) error {
	p, labels := bottom[0].DataSlice(), bottom[1].DataSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	var loss float64
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		if err != nil {
			return err
		}
		loss -= math.Log(float64(max(p[i*k+c], 1e-20)))
	}
	top[0].DataSlice()[0] = float32(loss / float64(n))
	return nil
}

// Backward puts −1/(N·p[label]) at each label and zero elsewhere.
func (l *MultinomialLogisticLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	p, labels, dp := bottom[0].DataSlice(), bottom[1].DataSlice(), bottom[0].DiffSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	scale := -top[0].DiffSlice()[0] / float32(n)
	clear(dp[:n*k])
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		if err != nil {
			continue // Forward has reported it
		}
		dp[i*k+c] = scale / max(p[i*k+c], 1e-20)
	}
}
