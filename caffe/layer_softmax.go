package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	registerComputed("Softmax", newSoftmax)
	registerComputed("SoftmaxWithLoss", newSoftmaxWithLoss)
}

// Softmax normalises exponentials along an axis (softmax_param.axis,
// default 1): y = exp(x − max) / Σ exp(x − max). It may run in place.
type Softmax struct {
	layerBase
	axisParam           int
	outer, chans, inner int
	scale               []float32
}

var _ Layer = (*Softmax)(nil)

func newSoftmax(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Softmax{layerBase: newLayerBase("Softmax", def, env), axisParam: int(def.GetSoftmaxParam().GetAxis())}, nil
}

// Setup checks the blobs and shapes the top.
func (l *Softmax) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape gives the top the bottom's shape.
func (l *Softmax) Reshape(bottom, top []*Blob) error {
	if err := l.reshapeAxis(bottom[0]); err != nil {
		return err
	}
	if top[0] != bottom[0] {
		top[0].ReshapeLike(bottom[0])
	}
	return nil
}

func (l *Softmax) reshapeAxis(b *Blob) error {
	axis, err := canonicalAxis("softmax_param.axis", l.axisParam, b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	l.outer, l.chans, l.inner = b.CountRange(0, axis), b.Dim(axis), b.CountFrom(axis+1)
	if cap(l.scale) < l.inner {
		l.scale = make([]float32, l.inner)
	}
	l.scale = l.scale[:l.inner]
	return nil
}

// Forward computes the softmax.
func (l *Softmax) Forward(bottom, top []*Blob) error {
	softmaxForward(bottom[0].DataSlice(), top[0].DataSlice(), l.outer, l.chans, l.inner, l.scale)
	return nil
}

// softmaxForward computes y = softmax(x) over the channel axis of an
// [outer, chans, inner] array, as Caffe does: subtract the per-position
// maximum, exponentiate, divide by the sum. scale holds inner values.
func softmaxForward(x, y []float32, outer, chans, inner int, scale []float32) {
	dim := chans * inner
	for i := range outer {
		xi, yi := x[i*dim:(i+1)*dim], y[i*dim:(i+1)*dim]
		if inner == 1 {
			mx := xi[0]
			for _, v := range xi {
				mx = max(mx, v)
			}
			var sum float32
			for c, v := range xi {
				e := float32(math.Exp(float64(v - mx)))
				yi[c] = e
				sum += e
			}
			for c := range yi {
				yi[c] /= sum
			}
			continue
		}
		copy(scale, xi[:inner])
		for c := range chans {
			for k, v := range xi[c*inner : (c+1)*inner] {
				scale[k] = max(scale[k], v)
			}
		}
		for c := range chans {
			row, xr := yi[c*inner:(c+1)*inner], xi[c*inner:(c+1)*inner]
			for k, v := range xr {
				row[k] = float32(math.Exp(float64(v - scale[k])))
			}
		}
		clear(scale)
		for c := range chans {
			for k, v := range yi[c*inner : (c+1)*inner] {
				scale[k] += v
			}
		}
		for c := range chans {
			row := yi[c*inner : (c+1)*inner]
			for k := range row {
				row[k] /= scale[k]
			}
		}
	}
}

// Backward computes dx = (dy − Σ_c dy·y) · y.
func (l *Softmax) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dim := l.chans * l.inner
	for i := range l.outer {
		yi, dyi, dxi := y[i*dim:(i+1)*dim], dy[i*dim:(i+1)*dim], dx[i*dim:(i+1)*dim]
		for k := range l.inner {
			var dot float32
			for c := range l.chans {
				j := c*l.inner + k
				dot += dyi[j] * yi[j]
			}
			for c := range l.chans {
				j := c*l.inner + k
				dxi[j] = (dyi[j] - dot) * yi[j]
			}
		}
	}
}

// lossNormalization returns the normalization mode of a loss layer:
// normalization if given, else the deprecated normalize (true: VALID,
// false: BATCH_SIZE), else def.
func lossNormalization(p *caffepb.LossParameter, def caffepb.LossParameter_NormalizationMode) caffepb.LossParameter_NormalizationMode {
	switch {
	case p == nil:
		return def
	case p.Normalization != nil:
		return p.GetNormalization()
	case p.Normalize != nil:
		if p.GetNormalize() {
			return caffepb.LossParameter_VALID
		}
		return caffepb.LossParameter_BATCH_SIZE
	}
	return def
}

// lossNormalizer is the divisor of a loss over outer·inner positions of
// which valid were not ignored (valid < 0: no ignore label), at least 1.
func lossNormalizer(mode caffepb.LossParameter_NormalizationMode, outer, inner, valid int) float32 {
	var n float32
	switch mode {
	case caffepb.LossParameter_FULL:
		n = float32(outer * inner)
	case caffepb.LossParameter_VALID:
		if valid < 0 {
			n = float32(outer * inner)
		} else {
			n = float32(valid)
		}
	case caffepb.LossParameter_BATCH_SIZE:
		n = float32(outer)
	default:
		n = 1
	}
	return max(1, n)
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

var (
	_ LossLayer            = (*SoftmaxWithLoss)(nil)
	_ ForceBackwardLimiter = (*SoftmaxWithLoss)(nil)
)

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

// IsLoss reports that the first top is a loss.
func (l *SoftmaxWithLoss) IsLoss() bool { return true }

// AllowForceBackward is false for the labels.
func (l *SoftmaxWithLoss) AllowForceBackward(bottom int) bool { return bottom != 1 }

// Setup checks the blobs and shapes the tops.
func (l *SoftmaxWithLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 2); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks the label count and shapes the loss (a scalar) and the
// probabilities.
func (l *SoftmaxWithLoss) Reshape(bottom, top []*Blob) error {
	if err := lossFirstDims(&l.layerBase, bottom); err != nil {
		return err
	}
	if err := l.sm.reshapeAxis(bottom[0]); err != nil {
		return err
	}
	if n := bottom[1].Count(); n != l.sm.outer*l.sm.inner {
		return l.errorf("%d labels for %d predictions (scores %v, softmax axis %d); with scores (N, C, H, W) and axis 1 give N·H·W labels in {0, …, C−1}",
			n, l.sm.outer*l.sm.inner, bottom[0].shape, l.sm.axisParam)
	}
	l.prob.ReshapeLike(bottom[0])
	top[0].Reshape()
	if len(top) > 1 {
		top[1].ReshapeLike(bottom[0])
	}
	return nil
}

// lossFirstDims checks that a loss layer's first two bottoms agree in
// their first dimension, as Caffe's LossLayer.
func lossFirstDims(l *layerBase, bottom []*Blob) error {
	a, b := bottom[0], bottom[1]
	if a.NumAxes() == 0 || b.NumAxes() == 0 || a.Dim(0) != b.Dim(0) {
		return l.errorf("the data (shape %v) and label (shape %v) must have the same first dimension", a.shape, b.shape)
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
