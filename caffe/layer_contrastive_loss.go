package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "ContrastiveLoss", Bottoms: Exactly(3), Tops: Exactly(1), Loss: true, New: newContrastiveLoss,
		Shape: func(c *ShapeContext) error { return lossShapes(c, checkContrastive) }})
}

// ContrastiveLoss is the loss of Caffe's siamese example: for feature
// pairs a, b (bottoms 0 and 1, N×C) and similarity labels y (bottom 2),
// Σ [y·d² + (1−y)·max(margin − d, 0)²] / 2N with d = ‖a − b‖
// (contrastive_loss_param: margin 1; legacy_version uses
// max(margin − d², 0) instead). The features get gradients.
type ContrastiveLoss struct {
	layerBase
	margin float32
	legacy bool
	diff   []float32 // a − b
	distSq []float32 // per pair
}

var _ ForceBackwardLimiter = (*ContrastiveLoss)(nil)

func newContrastiveLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetContrastiveLossParam()
	return &ContrastiveLoss{layerBase: newLayerBase("ContrastiveLoss", def, env), margin: p.GetMargin(), legacy: p.GetLegacyVersion()}, nil
}

// AllowForceBackward is true for the two feature bottoms.
func (l *ContrastiveLoss) AllowForceBackward(bottom int) bool { return bottom < 2 }

// Setup checks the blobs.
func (l *ContrastiveLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the pairs and labels agree.
func (l *ContrastiveLoss) Reshape(bottom, top []*Blob) error {
	if err := reshapeLoss(&l.layerBase, bottom, top, checkContrastive); err != nil {
		return err
	}
	l.diff = growFloats(l.diff, bottom[0].Count())
	l.distSq = growFloats(l.distSq, bottom[0].Dim(0))
	return nil
}

// checkContrastive checks for two feature blobs of one shape N×C and N
// labels.
func checkContrastive(bottoms []Shape) error {
	a, b, y := bottoms[0], bottoms[1], bottoms[2]
	if len(a) < 1 || !a.equal(b) || y.Count() != a[0] {
		return fmt.Errorf("want two feature blobs of one shape N×C and N labels, got %v, %v and %v", []int(a), []int(b), []int(y))
	}
	return nil
}

// Forward computes the loss.
func (l *ContrastiveLoss) Forward(bottom, top []*Blob) error {
	a, b, y := bottom[0].DataSlice(), bottom[1].DataSlice(), bottom[2].DataSlice()
	n := bottom[0].Dim(0)
	c := bottom[0].Count() / max(1, n)
	var loss float64
	for i := 0; i < n; i++ {
		var d2 float32
		for j := i * c; j < (i+1)*c; j++ {
			l.diff[j] = a[j] - b[j]
			d2 += l.diff[j] * l.diff[j]
		}
		l.distSq[i] = d2
		if y[i] != 0 {
			loss += float64(d2)
		} else if l.legacy {
			loss += float64(max(l.margin-d2, 0))
		} else {
			m := max(l.margin-float32(math.Sqrt(float64(d2))), 0)
			loss += float64(m * m)
		}
	}
	top[0].DataSlice()[0] = float32(loss / float64(n) / 2)
	return nil
}

// Backward passes ±(a − b)/N for similar pairs and, for dissimilar pairs
// still inside the margin, the gradient of the hinge, as Caffe computes it.
func (l *ContrastiveLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	y := bottom[2].DataSlice()
	n := bottom[0].Dim(0)
	c := bottom[0].Count() / max(1, n)
	for k := range 2 {
		if k >= len(propagateDown) || !propagateDown[k] {
			continue
		}
		sign := float32(1)
		if k == 1 {
			sign = -1
		}
		alpha := sign * top[0].DiffSlice()[0] / float32(n)
		dx := bottom[k].DiffSlice()
		for i := 0; i < n; i++ {
			scale := alpha
			if y[i] == 0 {
				var m float32
				if l.legacy {
					m, scale = l.margin-l.distSq[i], -alpha
				} else {
					d := float32(math.Sqrt(float64(l.distSq[i])))
					m = l.margin - d
					scale = -alpha * m / (d + 1e-4)
				}
				if m <= 0 {
					scale = 0
				}
			}
			for j := i * c; j < (i+1)*c; j++ {
				dx[j] = scale * l.diff[j]
			}
		}
	}
}
