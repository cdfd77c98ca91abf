package caffe

import (
	"math"
	"path/filepath"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() { registerComputed("InfogainLoss", newInfogainLoss) }

// InfogainLoss generalizes SoftmaxWithLoss with an information gain
// matrix H (K×K, from infogain_loss_param.source, a .binaryproto, or a
// third bottom): over the softmax p of the scores along
// infogain_loss_param.axis (default 1), the loss is
// −Σ_k H[label, k]·log p_k / normalizer, with loss_param's ignore_label
// and normalization (default VALID) as in SoftmaxWithLoss. With H the
// identity it is the softmax loss. The scores get the gradient
// p·Σ_k H[label, k] − H[label, ·].
type InfogainLoss struct {
	layerBase
	scoreLoss
	sm        Softmax
	prob      *Blob
	h         []float32 // from the source; nil when it is the third bottom
	hasIgnore bool
	ignore    int
	norm      caffepb.LossParameter_NormalizationMode
	valid     int
}

var (
	_ LossLayer            = (*InfogainLoss)(nil)
	_ ForceBackwardLimiter = (*InfogainLoss)(nil)
)

func newInfogainLoss(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	lp := orDefaults(def.GetLossParam())
	p := def.GetInfogainLossParam()
	l := &InfogainLoss{
		layerBase: newLayerBase("InfogainLoss", def, env),
		prob:      NewBlob(),
		hasIgnore: lp.IgnoreLabel != nil,
		ignore:    int(lp.GetIgnoreLabel()),
		norm:      lossNormalization(lp, caffepb.LossParameter_VALID),
	}
	l.sm = Softmax{layerBase: l.layerBase, axisParam: int(p.GetAxis())}
	if src := p.GetSource(); src != "" {
		if !filepath.IsAbs(src) && env.Dir != "" && !exists(src) {
			src = filepath.Join(env.Dir, src)
		}
		bp, err := ReadBlobProto(src)
		if err != nil {
			return nil, err
		}
		l.h = bp.GetData()
	}
	return l, nil
}

// Setup checks the blobs.
func (l *InfogainLoss) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 3, 1, 1); err != nil {
		return err
	}
	if (l.h == nil) == (len(bottom) == 2) {
		return l.errorf("give the infogain matrix either as infogain_loss_param.source or as a third bottom, exactly one")
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
	if err := l.sm.reshapeAxis(bottom[0]); err != nil {
		return err
	}
	if n := bottom[1].Count(); n != l.sm.outer*l.sm.inner {
		return l.errorf("%d labels for %d predictions (scores %v)", n, l.sm.outer*l.sm.inner, bottom[0].shape)
	}
	if k := l.sm.chans; len(l.matrix(bottom)) != k*k {
		return l.errorf("the infogain matrix has %d values; want %d×%d for %d classes", len(l.matrix(bottom)), k, k, k)
	}
	l.prob.ReshapeLike(bottom[0])
	top[0].Reshape()
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
