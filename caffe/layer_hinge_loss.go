package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "HingeLoss", Bottoms: Exactly(2), Tops: Exactly(1), Loss: true, New: newHingeLoss,
		Shape: func(c *ShapeContext) error { return lossShapes(c, checkSampleLabels) }})
}

// HingeLoss is the one-vs-all hinge loss of scores (bottom 0, N×K…)
// against labels (bottom 1): Σ max(0, 1 − t·s) / N with t = +1 for the
// label's score and −1 for the others, or the sum of squares with
// hinge_loss_param.norm L2.
type HingeLoss struct {
	layerBase
	scoreLoss
	l2     bool
	margin []float32 // max(0, 1 − t·s)
}

var _ ForceBackwardLimiter = (*HingeLoss)(nil)

func newHingeLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &HingeLoss{layerBase: newLayerBase("HingeLoss", def, env), l2: def.GetHingeLossParam().GetNorm() == caffepb.HingeLossParameter_L2}, nil
}

// Setup checks the blobs.
func (l *HingeLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks one label per sample.
func (l *HingeLoss) Reshape(bottom, top []*Blob) error {
	if err := reshapeLoss(&l.layerBase, bottom, top, checkSampleLabels); err != nil {
		return err
	}
	l.margin = growFloats(l.margin, bottom[0].Count())
	return nil
}

// Forward computes the loss.
func (l *HingeLoss) Forward(bottom, top []*Blob) error {
	s, labels := bottom[0].DataSlice(), bottom[1].DataSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	var loss float64
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		if err != nil {
			return err
		}
		for j := 0; j < k; j++ {
			t := float32(-1)
			if j == c {
				t = 1
			}
			m := max(0, 1-t*s[i*k+j])
			l.margin[i*k+j] = m
			if l.l2 {
				loss += float64(m * m)
			} else {
				loss += float64(m)
			}
		}
	}
	top[0].DataSlice()[0] = float32(loss / float64(n))
	return nil
}

// Backward passes −t·sign(margin)/N (L1) or −2t·margin/N (L2).
func (l *HingeLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	labels, ds := bottom[1].DataSlice(), bottom[0].DiffSlice()
	n := bottom[0].Dim(0)
	k := bottom[0].Count() / max(1, n)
	scale := top[0].DiffSlice()[0] / float32(n)
	for i := 0; i < n; i++ {
		c, err := classOf(&l.layerBase, labels, i, k)
		for j := 0; j < k; j++ {
			m := l.margin[i*k+j]
			if err != nil {
				m = 0
			}
			t := float32(-1)
			if j == c {
				t = 1
			}
			g := float32(0)
			switch {
			case l.l2:
				g = 2 * m
			case m > 0:
				g = 1
			}
			ds[i*k+j] = -t * g * scale
		}
	}
}
