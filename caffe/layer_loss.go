package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// Helpers of the loss layers.

// scoreLoss is the loss-layer behaviour of the layers whose first top is
// the loss and whose first bottom (scores or probabilities) alone takes a
// gradient; the others are labels or fixed inputs.
type scoreLoss struct{}

// AllowForceBackward is true for the first bottom only.
func (scoreLoss) AllowForceBackward(bottom int) bool { return bottom == 0 }

// checkSampleLabels checks that a loss layer's second bottom holds one
// label per sample of its first.
func checkSampleLabels(bottoms []Shape) error {
	if err := checkFirstDims(bottoms); err != nil {
		return err
	}
	if bottoms[1].Count() != bottoms[0][0] {
		return fmt.Errorf("want one label per sample: %v labels for %v scores", []int(bottoms[1]), []int(bottoms[0]))
	}
	return nil
}

// classOf returns sample i's label as a class index below k.
func classOf(l *layerBase, labels []float32, i, k int) (int, error) {
	c := int(labels[i])
	if float32(c) != labels[i] || c < 0 || c >= k {
		return 0, l.errorf("label %g of sample %d is not a class index in [0, %d)", labels[i], i, k)
	}
	return c, nil
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

// checkFirstDims checks that a loss layer's first two bottoms agree in
// their first dimension, as Caffe's LossLayer.
func checkFirstDims(bottoms []Shape) error {
	a, b := bottoms[0], bottoms[1]
	if len(a) == 0 || len(b) == 0 || a[0] != b[0] {
		return fmt.Errorf("the data (shape %v) and label (shape %v) must have the same first dimension", []int(a), []int(b))
	}
	return nil
}

// lossShapes is the shape rule of a loss layer: its first top is a scalar
// and, once the bottoms' shapes are known, check checks them.
func lossShapes(c *ShapeContext, check func(bottoms []Shape) error) error {
	c.Tops[0] = Shape{}
	if !c.Known() || check == nil {
		return nil
	}
	if err := check(c.Bottoms); err != nil {
		return c.Errorf("%w", err)
	}
	return nil
}

// reshapeLoss checks a loss layer's bottoms with check and makes its first
// top a scalar.
func reshapeLoss(l *layerBase, bottom, top []*Blob, check func(bottoms []Shape) error) error {
	if err := check(blobShapes(bottom)); err != nil {
		return l.errorf("%w", err)
	}
	top[0].Reshape()
	return nil
}
