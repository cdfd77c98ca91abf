package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "SigmoidCrossEntropyLoss", Bottoms: Exactly(2), Tops: Exactly(1), Loss: true, New: newSigmoidCrossEntropyLoss,
		Shape: func(c *ShapeContext) error { return lossShapes(c, checkSigmoidCrossEntropy) }})
}

// SigmoidCrossEntropyLoss is the cross-entropy of the logistic function of
// the scores (first bottom) against targets in [0, 1] (second bottom, same
// count), computed stably, summed over the positions whose target is not
// loss_param.ignore_label and divided by the normalizer
// (loss_param.normalization; default BATCH_SIZE, the deprecated normalize:
// true means VALID).
type SigmoidCrossEntropyLoss struct {
	layerBase
	hasIgnore    bool
	ignore       int
	norm         caffepb.LossParameter_NormalizationMode
	outer, inner int
	sig          []float32
	normalizer   float32
}

var _ ForceBackwardLimiter = (*SigmoidCrossEntropyLoss)(nil)

func newSigmoidCrossEntropyLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	lp := orDefaults(def.GetLossParam())
	return &SigmoidCrossEntropyLoss{
		layerBase: newLayerBase("SigmoidCrossEntropyLoss", def, env),
		hasIgnore: lp.IgnoreLabel != nil,
		ignore:    int(lp.GetIgnoreLabel()),
		norm:      lossNormalization(lp, caffepb.LossParameter_BATCH_SIZE),
	}, nil
}

// AllowForceBackward is false for the targets.
func (l *SigmoidCrossEntropyLoss) AllowForceBackward(bottom int) bool { return bottom != 1 }

// Setup checks the blobs and shapes the loss.
func (l *SigmoidCrossEntropyLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the bottoms agree.
func (l *SigmoidCrossEntropyLoss) Reshape(bottom, top []*Blob) error {
	if err := reshapeLoss(&l.layerBase, bottom, top, checkSigmoidCrossEntropy); err != nil {
		return err
	}
	l.outer, l.inner = bottom[0].Dim(0), bottom[0].CountFrom(1)
	l.sig = growFloats(l.sig, bottom[0].Count())
	return nil
}

// checkSigmoidCrossEntropy checks that the scores and the targets have the
// same batch and count.
func checkSigmoidCrossEntropy(bottoms []Shape) error {
	if err := checkFirstDims(bottoms); err != nil {
		return err
	}
	if bottoms[0].Count() != bottoms[1].Count() {
		return fmt.Errorf("scores (shape %v) and targets (shape %v) must have the same count", []int(bottoms[0]), []int(bottoms[1]))
	}
	return nil
}

// Forward computes the loss.
func (l *SigmoidCrossEntropyLoss) Forward(bottom, top []*Blob) error {
	x, t := bottom[0].DataSlice(), bottom[1].DataSlice()
	var loss float32
	valid := 0
	for i, v := range x {
		l.sig[i] = sigmoid(v)
		if l.hasIgnore && int(t[i]) == l.ignore {
			continue
		}
		pos := float32(0)
		if v >= 0 {
			pos = 1
		}
		loss -= v*(t[i]-pos) - float32(math.Log(1+math.Exp(float64(v-2*v*pos))))
		valid++
	}
	l.normalizer = lossNormalizer(l.norm, l.outer, l.inner, valid)
	top[0].DataSlice()[0] = loss / l.normalizer
	return nil
}

// Backward computes (sigmoid(x) − t) · loss weight / normalizer, zero at
// ignored positions. The targets get no gradient.
func (l *SigmoidCrossEntropyLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	t, dx := bottom[1].DataSlice(), bottom[0].DiffSlice()
	w := top[0].DiffSlice()[0] / l.normalizer
	for i, s := range l.sig[:len(dx)] {
		if l.hasIgnore && int(t[i]) == l.ignore {
			dx[i] = 0
			continue
		}
		dx[i] = (s - t[i]) * w
	}
}
