package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "SoftmaxWithLoss", Bottoms: Exactly(2), Tops: Between(1, 2), Loss: true, New: newSoftmaxWithLoss,
		Shape: ruleOf((*SoftmaxWithLoss).inferShapes)})
}

// SoftmaxWithLoss is the multinomial logistic loss of the softmax of its
// first bottom (scores, softmax along softmax_param.axis) against integer
// labels in its second bottom: −Σ log p[label] / normalizer, over the
// positions whose label is not loss_param.ignore_label. The normalizer is
// chosen by loss_param.normalization (FULL, VALID (default), BATCH_SIZE,
// NONE; the deprecated normalize: true means VALID, false BATCH_SIZE). An
// optional second top receives the probabilities.
//
// Its loss weight is the first top's diff, which the net sets.
type SoftmaxWithLoss struct {
	layerBase
	sm        Softmax
	prob      *Blob
	hasIgnore bool
	ignore    int
	norm      caffepb.LossParameter_NormalizationMode
	valid     int
}

var _ ForceBackwardLimiter = (*SoftmaxWithLoss)(nil)

func newSoftmaxWithLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	lp := orDefaults(def.GetLossParam())
	l := &SoftmaxWithLoss{
		layerBase: newLayerBase("SoftmaxWithLoss", def, env),
		prob:      NewBlob(),
		hasIgnore: lp.IgnoreLabel != nil,
		ignore:    int(lp.GetIgnoreLabel()),
		norm:      lossNormalization(lp, caffepb.LossParameter_VALID),
	}
	l.sm = Softmax{layerBase: l.layerBase, axisParam: int(def.GetSoftmaxParam().GetAxis())}
	return l, nil
}

// AllowForceBackward is false for the labels.
func (l *SoftmaxWithLoss) AllowForceBackward(bottom int) bool { return bottom != 1 }

// Setup checks the blobs and shapes the tops.
func (l *SoftmaxWithLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// check checks the scores and labels: one label per position of the
// scores along the softmax axis.
func (l *SoftmaxWithLoss) check(bottoms []Shape) error {
	if err := checkFirstDims(bottoms); err != nil {
		return err
	}
	scores := bottoms[0]
	axis, err := canonicalAxis("softmax_param.axis", l.sm.axisParam, len(scores))
	if err != nil {
		return err
	}
	outer, inner := scores.count(0, axis), scores.count(axis+1, len(scores))
	if n := bottoms[1].Count(); n != outer*inner {
		return fmt.Errorf("%d labels for %d predictions (scores %v, softmax axis %d); with scores (N, C, H, W) and axis 1 give N·H·W labels in {0, …, C−1}",
			n, outer*inner, []int(scores), axis)
	}
	return nil
}

// inferShapes is SoftmaxWithLoss's shape rule: the loss, and the
// probabilities in the scores' shape.
func (l *SoftmaxWithLoss) inferShapes(c *ShapeContext) error {
	if err := lossShapes(c, l.check); err != nil || !c.Known() {
		return err
	}
	if len(c.Tops) > 1 {
		c.Tops[1] = c.Bottoms[0].clone()
	}
	return nil
}

// Reshape checks the label count and shapes the loss (a scalar) and the
// probabilities.
func (l *SoftmaxWithLoss) Reshape(bottom, top []*Blob) error {
	if err := l.check([]Shape{bottom[0].shape, bottom[1].shape}); err != nil {
		return l.errorf("%w", err)
	}
	if err := l.sm.reshapeAxis(bottom[0]); err != nil {
		return err
	}
	l.prob.ReshapeLike(bottom[0])
	top[0].Reshape()
	if len(top) > 1 {
		top[1].ReshapeLike(bottom[0])
	}
	return nil
}

// Forward computes the probabilities and the loss.
func (l *SoftmaxWithLoss) Forward(bottom, top []*Blob) error {
	outer, chans, inner := l.sm.outer, l.sm.chans, l.sm.inner
	prob := l.prob.DataSlice()
	softmaxForward(bottom[0].DataSlice(), prob, outer, chans, inner, l.sm.scale)
	labels := bottom[1].DataSlice()
	dim := chans * inner
	var loss float32
	valid := 0
	for i := range outer {
		for j := range inner {
			lf := labels[i*inner+j]
			lab := int(lf)
			if l.hasIgnore && lab == l.ignore {
				continue
			}
			if lf != lf || lab < 0 || lab >= chans {
				return l.errorf("label %v at position %d is outside 0..%d", lf, i*inner+j, chans-1)
			}
			loss -= float32(math.Log(float64(max(prob[i*dim+lab*inner+j], fltMin))))
			valid++
		}
	}
	l.valid = valid
	top[0].DataSlice()[0] = loss / lossNormalizer(l.norm, outer, inner, valid)
	if len(top) > 1 {
		copy(top[1].DataSlice(), prob)
	}
	return nil
}

// Backward computes (p − onehot(label)) · loss weight / normalizer, zero
// at ignored positions. The labels get no gradient.
func (l *SoftmaxWithLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	outer, chans, inner := l.sm.outer, l.sm.chans, l.sm.inner
	dx, prob, labels := bottom[0].DiffSlice(), l.prob.DataSlice(), bottom[1].DataSlice()
	copy(dx, prob)
	dim := chans * inner
	for i := range outer {
		for j := range inner {
			lab := int(labels[i*inner+j])
			if l.hasIgnore && lab == l.ignore {
				for c := range chans {
					dx[i*dim+c*inner+j] = 0
				}
				continue
			}
			if lab >= 0 && lab < chans {
				dx[i*dim+lab*inner+j]--
			}
		}
	}
	w := top[0].DiffSlice()[0] / lossNormalizer(l.norm, outer, inner, l.valid)
	kernel.Scale(w, dx)
}

// fltMin is the smallest normal float32 (C's FLT_MIN), the floor of the
// probabilities whose logarithm a loss takes.
const fltMin = 0x1p-126
