package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Accuracy", Bottoms: Exactly(2), Tops: Between(1, 2), New: newAccuracy, Shape: ruleOf((*Accuracy).inferShapes)})
}

// Accuracy is the fraction of positions whose label is among the top_k
// scores (accuracy_param.axis, default 1, holds the classes). A class
// scoring equal to the true class counts against it: a position is right
// when fewer than top_k classes other than the label score at least as
// much. Positions labelled accuracy_param.ignore_label are skipped. An
// optional second top receives the accuracy of each class. It has no
// gradient.
type Accuracy struct {
	layerBase
	topK         int
	hasIgnore    bool
	ignore       int
	axisParam    int
	outer, inner int
	classes      int
	nums, hits   []int
}

var _ Layer = (*Accuracy)(nil)

func newAccuracy(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetAccuracyParam())
	if p.GetTopK() < 1 {
		return nil, fmt.Errorf("accuracy_param.top_k must be >= 1")
	}
	return &Accuracy{
		layerBase: newLayerBase("Accuracy", def, env),
		topK:      int(p.GetTopK()),
		hasIgnore: p.IgnoreLabel != nil,
		ignore:    int(p.GetIgnoreLabel()),
		axisParam: int(p.GetAxis()),
	}, nil
}

// Setup checks the blobs and shapes the tops.
func (l *Accuracy) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// geometry checks scores and labels of the given shapes and returns the
// positions before the class axis, the classes and the positions after it.
func (l *Accuracy) geometry(scores, labels Shape) (outer, classes, inner int, err error) {
	axis, err := canonicalAxis("accuracy_param.axis", l.axisParam, len(scores))
	if err != nil {
		return 0, 0, 0, err
	}
	if labels.Count() == 0 || l.topK > scores.Count()/labels.Count() {
		return 0, 0, 0, fmt.Errorf("top_k %d must be at most the number of classes (scores %v, labels %v)", l.topK, []int(scores), []int(labels))
	}
	outer, classes, inner = scores.count(0, axis), scores[axis], scores.count(axis+1, len(scores))
	if outer*inner != labels.Count() {
		return 0, 0, 0, fmt.Errorf("%d labels for %d predictions (scores %v, axis %d); with scores (N, C, H, W) and axis 1 give N·H·W labels",
			labels.Count(), outer*inner, []int(scores), axis)
	}
	return outer, classes, inner, nil
}

// inferShapes is Accuracy's shape rule: a scalar, and the per-class
// accuracies.
func (l *Accuracy) inferShapes(c *ShapeContext) error {
	c.Tops[0] = Shape{}
	if !c.Known() {
		return nil
	}
	_, classes, _, err := l.geometry(c.Bottoms[0], c.Bottoms[1])
	if err != nil {
		return c.Errorf("%w", err)
	}
	if len(c.Tops) > 1 {
		c.Tops[1] = Shape{classes}
	}
	return nil
}

// Reshape checks the label count; the accuracy is a scalar.
func (l *Accuracy) Reshape(bottom, top []*Blob) error {
	var err error
	if l.outer, l.classes, l.inner, err = l.geometry(bottom[0].shape, bottom[1].shape); err != nil {
		return l.errorf("%w", err)
	}
	top[0].Reshape()
	if len(top) > 1 {
		top[1].Reshape(l.classes)
	}
	if cap(l.nums) < l.classes {
		l.nums, l.hits = make([]int, l.classes), make([]int, l.classes)
	}
	l.nums, l.hits = l.nums[:l.classes], l.hits[:l.classes]
	return nil
}

// Forward counts the right positions.
func (l *Accuracy) Forward(bottom, top []*Blob) error {
	scores, labels := bottom[0].DataSlice(), bottom[1].DataSlice()
	dim := l.classes * l.inner
	clear(l.nums)
	clear(l.hits)
	right, count := 0, 0
	for i := range l.outer {
		for j := range l.inner {
			lf := labels[i*l.inner+j]
			lab := int(lf)
			if l.hasIgnore && lab == l.ignore {
				continue
			}
			if lf != lf || lab < 0 || lab >= l.classes {
				return l.errorf("label %v at position %d is outside 0..%d", lf, i*l.inner+j, l.classes-1)
			}
			l.nums[lab]++
			s := scores[i*dim+j:]
			truth := s[lab*l.inner]
			better := -1 // the true class counts itself
			for k := range l.classes {
				if s[k*l.inner] >= truth {
					better++
				}
			}
			if better < l.topK {
				right++
				l.hits[lab]++
			}
			count++
		}
	}
	acc := float32(0)
	if count > 0 {
		acc = float32(right) / float32(count)
	}
	top[0].DataSlice()[0] = acc
	if len(top) > 1 {
		per := top[1].DataSlice()
		for c := range per {
			per[c] = 0
			if l.nums[c] > 0 {
				per[c] = float32(l.hits[c]) / float32(l.nums[c])
			}
		}
	}
	return nil
}

// Backward does nothing: accuracy has no gradient.
func (l *Accuracy) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
