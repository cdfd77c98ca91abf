package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	registerComputed("EuclideanLoss", newEuclideanLoss)
	registerComputed("SigmoidCrossEntropyLoss", newSigmoidCrossEntropyLoss)
}

// EuclideanLoss is Σ (a − b)² / (2N) over two bottoms of the same size,
// N being the first dimension. Both bottoms get gradients.
type EuclideanLoss struct {
	layerBase
	diff []float32
}

var (
	_ LossLayer            = (*EuclideanLoss)(nil)
	_ ForceBackwardLimiter = (*EuclideanLoss)(nil)
)

func newEuclideanLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &EuclideanLoss{layerBase: newLayerBase("EuclideanLoss", def, env)}, nil
}

// IsLoss reports that the first top is a loss.
func (l *EuclideanLoss) IsLoss() bool { return true }

// AllowForceBackward is true for both bottoms.
func (l *EuclideanLoss) AllowForceBackward(bottom int) bool { return true }

// Setup checks the blobs and shapes the loss.
func (l *EuclideanLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the bottoms agree.
func (l *EuclideanLoss) Reshape(bottom, top []*Blob) error {
	if err := lossFirstDims(&l.layerBase, bottom); err != nil {
		return err
	}
	if bottom[0].CountFrom(1) != bottom[1].CountFrom(1) {
		return l.errorf("inputs of shapes %v and %v must have the same dimension", bottom[0].shape, bottom[1].shape)
	}
	l.diff = growFloats(l.diff, bottom[0].Count())
	top[0].Reshape()
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

var (
	_ LossLayer            = (*SigmoidCrossEntropyLoss)(nil)
	_ ForceBackwardLimiter = (*SigmoidCrossEntropyLoss)(nil)
)

func newSigmoidCrossEntropyLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	lp := orDefaults(def.GetLossParam())
	return &SigmoidCrossEntropyLoss{
		layerBase: newLayerBase("SigmoidCrossEntropyLoss", def, env),
		hasIgnore: lp.IgnoreLabel != nil,
		ignore:    int(lp.GetIgnoreLabel()),
		norm:      lossNormalization(lp, caffepb.LossParameter_BATCH_SIZE),
	}, nil
}

// IsLoss reports that the first top is a loss.
func (l *SigmoidCrossEntropyLoss) IsLoss() bool { return true }

// AllowForceBackward is false for the targets.
func (l *SigmoidCrossEntropyLoss) AllowForceBackward(bottom int) bool { return bottom != 1 }

// Setup checks the blobs and shapes the loss.
func (l *SigmoidCrossEntropyLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the bottoms agree.
func (l *SigmoidCrossEntropyLoss) Reshape(bottom, top []*Blob) error {
	if err := lossFirstDims(&l.layerBase, bottom); err != nil {
		return err
	}
	if bottom[0].Count() != bottom[1].Count() {
		return l.errorf("scores (shape %v) and targets (shape %v) must have the same count", bottom[0].shape, bottom[1].shape)
	}
	l.outer, l.inner = bottom[0].Dim(0), bottom[0].CountFrom(1)
	l.sig = growFloats(l.sig, bottom[0].Count())
	top[0].Reshape()
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
