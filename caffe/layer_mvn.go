package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "MVN", Bottoms: Exactly(1), Tops: Exactly(1), New: newMVN, Shape: ruleOf((*MVN).inferShapes)})
}

// MVN normalizes each channel of each sample (or each sample, with
// mvn_param.across_channels) to mean 0 and, with normalize_variance (the
// default), to unit variance: y = (x − mean) / (std + eps), eps 1e−9.
type MVN struct {
	neuronNotInPlace
	variance bool
	across   bool
	eps      float32
	groups   int       // normalized groups
	size     int       // values per group
	std      []float32 // per group, plus eps
}

func newMVN(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetMvnParam()
	return &MVN{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("MVN", def, env)}},
		variance: p.GetNormalizeVariance(), across: p.GetAcrossChannels(), eps: p.GetEps()}, nil
}

// Setup checks the blobs and sizes the groups.
func (l *MVN) Setup(bottom, top []*Blob) error {
	if err := l.neuronNotInPlace.Setup(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// checkMVN checks that the bottom has a sample and a channel axis.
func checkMVN(b Shape) error {
	if len(b) < 2 {
		return fmt.Errorf("needs a bottom of at least 2 axes, got %v", []int(b))
	}
	return nil
}

// inferShapes is MVN's shape rule: the top keeps the bottom's shape.
func (l *MVN) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	if err := checkMVN(c.Bottoms[0]); err != nil {
		return c.Errorf("%w", err)
	}
	c.SameShapes()
	return nil
}

// Reshape sizes the groups.
func (l *MVN) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if err := checkMVN(b.shape); err != nil {
		return l.errorf("%w", err)
	}
	l.groups = b.Dim(0)
	if !l.across {
		l.groups *= b.Dim(1)
	}
	l.size = b.Count() / max(1, l.groups)
	l.std = growFloats(l.std, l.groups)
	return l.neuron.Reshape(bottom, top)
}

// Forward normalizes.
func (l *MVN) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for g := 0; g < l.groups; g++ {
		xs, ys := x[g*l.size:(g+1)*l.size], y[g*l.size:(g+1)*l.size]
		var mean float64
		for _, v := range xs {
			mean += float64(v)
		}
		mean /= float64(max(1, l.size))
		var ss float64
		for i, v := range xs {
			d := float64(v) - mean
			ys[i] = float32(d)
			ss += d * d
		}
		if !l.variance {
			continue
		}
		std := float32(math.Sqrt(ss/float64(max(1, l.size)))) + l.eps
		l.std[g] = std
		for i := range ys {
			ys[i] /= std
		}
	}
	return nil
}

// Backward: dx = dy − mean(dy), and with the variance normalized
// dx = (dy − mean(dy) − y·mean(dy·y)) / (std + eps).
func (l *MVN) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	n := float64(max(1, l.size))
	for g := 0; g < l.groups; g++ {
		lo, hi := g*l.size, (g+1)*l.size
		var mdy, mdyy float64
		for i := lo; i < hi; i++ {
			mdy += float64(dy[i])
			mdyy += float64(dy[i]) * float64(y[i])
		}
		mdy /= n
		mdyy /= n
		for i := lo; i < hi; i++ {
			if l.variance {
				dx[i] = float32((float64(dy[i]) - mdy - float64(y[i])*mdyy) / float64(l.std[g]))
			} else {
				dx[i] = dy[i] - float32(mdy)
			}
		}
	}
}
