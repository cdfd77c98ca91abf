package caffe

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "InfogainLoss", Bottoms: Between(2, 3), Tops: Between(1, 2), Loss: true, New: newInfogainLoss,
		Shape: ruleOf((*InfogainLoss).inferShapes)})
}

// InfogainLoss generalizes SoftmaxWithLoss with an information gain
// matrix H (K×K, from infogain_loss_param.source, a .binaryproto, or a
// third bottom): over the softmax p of the scores along
// infogain_loss_param.axis (default 1), the loss is
// −Σ_k H[label, k]·log p_k / normalizer, with loss_param's ignore_label
// and normalization (default VALID) as in SoftmaxWithLoss. With H the
// identity it is the softmax loss. The scores get the gradient
// p·Σ_k H[label, k] − H[label, ·]. An optional second top receives the
// probabilities.
type InfogainLoss struct {
	layerBase
	scoreLoss
	sm        Softmax
	prob      *Blob
	source    string    // infogain_loss_param.source
	h         []float32 // read from the source in Setup; nil when it is the third bottom
	hasIgnore bool
	ignore    int
	norm      caffepb.LossParameter_NormalizationMode
	valid     int
}

var _ ForceBackwardLimiter = (*InfogainLoss)(nil)

func newInfogainLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	lp := orDefaults(def.GetLossParam())
	p := def.GetInfogainLossParam()
	l := &InfogainLoss{
		layerBase: newLayerBase("InfogainLoss", def, env),
		prob:      NewBlob(),
		source:    p.GetSource(),
		hasIgnore: lp.IgnoreLabel != nil,
		ignore:    int(lp.GetIgnoreLabel()),
		norm:      lossNormalization(lp, caffepb.LossParameter_VALID),
	}
	l.sm = Softmax{layerBase: l.layerBase, axisParam: int(p.GetAxis())}
	return l, nil
}

// check checks the bottoms: the matrix given once, as the source or as a
// third bottom (of K×K values for K classes), and one label per position
// of the scores along the softmax axis.
func (l *InfogainLoss) check(bottoms []Shape) error {
	if (l.source == "") == (len(bottoms) == 2) {
		return fmt.Errorf("give the infogain matrix either as infogain_loss_param.source or as a third bottom, exactly one")
	}
	if len(bottoms) < 2 || !bottoms[0].Known() || !bottoms[1].Known() {
		return nil
	}
	scores := bottoms[0]
	axis, err := canonicalAxis("infogain_loss_param.axis", l.sm.axisParam, len(scores))
	if err != nil {
		return err
	}
	outer, k, inner := scores.count(0, axis), scores[axis], scores.count(axis+1, len(scores))
	if n := bottoms[1].Count(); n != outer*inner {
		return fmt.Errorf("%d labels for %d predictions (scores %v)", n, outer*inner, []int(scores))
	}
	if len(bottoms) > 2 && bottoms[2].Known() && bottoms[2].Count() != k*k {
		return fmt.Errorf("the infogain matrix has %d values; want %d×%d for %d classes", bottoms[2].Count(), k, k, k)
	}
	return nil
}

// inferShapes is InfogainLoss's shape rule: the loss, and the
// probabilities in the scores' shape.
func (l *InfogainLoss) inferShapes(c *ShapeContext) error {
	c.Tops[0] = Shape{}
	if err := l.check(c.Bottoms); err != nil {
		return c.Errorf("%w", err)
	}
	if len(c.Tops) > 1 && c.Bottoms[0].Known() {
		c.Tops[1] = c.Bottoms[0].clone()
	}
	return nil
}

// Setup checks the blobs and reads the matrix from the source.
func (l *InfogainLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.check(blobShapes(bottom)); err != nil {
		return l.errorf("%w", err)
	}
	if src := l.source; src != "" {
		if !filepath.IsAbs(src) && l.env.Dir != "" && !exists(src) {
			src = filepath.Join(l.env.Dir, src)
		}
		bp, err := ReadBlobProto(src)
		if err != nil {
			return l.errorf("infogain_loss_param.source: %w", err)
		}
		if l.h, err = format.BlobData(bp); err != nil {
			return l.errorf("infogain_loss_param.source %s: %w", src, err)
		}
	}
	return l.Reshape(bottom, top)
}

// matrix returns H.
func (l *InfogainLoss) matrix(bottom []*Blob) []float32 {
	if l.h != nil {
		return l.h
	}
	return bottom[2].DataSlice()
}

// Reshape checks the labels and the matrix.
func (l *InfogainLoss) Reshape(bottom, top []*Blob) error {
	if err := l.check(blobShapes(bottom)); err != nil {
		return l.errorf("%w", err)
	}
	if err := l.sm.reshapeAxis(bottom[0]); err != nil {
		return err
	}
	if k := l.sm.chans; len(l.matrix(bottom)) != k*k {
		return l.errorf("the infogain matrix has %d values; want %d×%d for %d classes", len(l.matrix(bottom)), k, k, k)
	}
	l.prob.ReshapeLike(bottom[0])
	top[0].Reshape()
	if len(top) > 1 {
		top[1].ReshapeLike(bottom[0])
	}
	return nil
}

// Forward computes the probabilities and the loss.
func (l *InfogainLoss) Forward(bottom, top []*Blob) error {
	outer, chans, inner := l.sm.outer, l.sm.chans, l.sm.inner
	prob := l.prob.DataSlice()
	softmaxForward(bottom[0].DataSlice(), prob, outer, chans, inner, l.sm.scale)
	h, labels := l.matrix(bottom), bottom[1].DataSlice()
	dim := chans * inner
	var loss float64
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
			for k := range chans {
				loss -= float64(h[lab*chans+k]) * math.Log(float64(max(prob[i*dim+k*inner+j], fltMin)))
			}
			valid++
		}
	}
	l.valid = valid
	top[0].DataSlice()[0] = float32(loss) / lossNormalizer(l.norm, outer, inner, valid)
	if len(top) > 1 {
		copy(top[1].DataSlice(), prob)
	}
	return nil
}

// Backward computes p·Σ_k H[label, k] − H[label, ·], times the loss
// weight over the normalizer; zero at ignored positions.
func (l *InfogainLoss) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	outer, chans, inner := l.sm.outer, l.sm.chans, l.sm.inner
	dx, prob, labels, h := bottom[0].DiffSlice(), l.prob.DataSlice(), bottom[1].DataSlice(), l.matrix(bottom)
	dim := chans * inner
	for i := range outer {
		for j := range inner {
			lab := int(labels[i*inner+j])
			if (l.hasIgnore && lab == l.ignore) || lab < 0 || lab >= chans {
				for c := range chans {
					dx[i*dim+c*inner+j] = 0
				}
				continue
			}
			row := h[lab*chans : (lab+1)*chans]
			var sum float32
			for _, v := range row {
				sum += v
			}
			for c := range chans {
				dx[i*dim+c*inner+j] = prob[i*dim+c*inner+j]*sum - row[c]
			}
		}
	}
	w := top[0].DiffSlice()[0] / lossNormalizer(l.norm, outer, inner, l.valid)
	kernel.Scale(w, dx)
}
