package caffe

import (
	"fmt"
	"slices"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	registerComputed("Accuracy", newAccuracy)
	registerComputed("ArgMax", newArgMax)
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
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 2); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks the label count; the accuracy is a scalar.
func (l *Accuracy) Reshape(bottom, top []*Blob) error {
	scores, labels := bottom[0], bottom[1]
	axis, err := canonicalAxis("accuracy_param.axis", l.axisParam, scores.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	if labels.Count() == 0 || l.topK > scores.Count()/labels.Count() {
		return l.errorf("top_k %d must be at most the number of classes (scores %v, labels %v)", l.topK, scores.shape, labels.shape)
	}
	l.outer, l.classes, l.inner = scores.CountRange(0, axis), scores.Dim(axis), scores.CountFrom(axis+1)
	if l.outer*l.inner != labels.Count() {
		return l.errorf("%d labels for %d predictions (scores %v, axis %d); with scores (N, C, H, W) and axis 1 give N·H·W labels",
			labels.Count(), l.outer*l.inner, scores.shape, axis)
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

// ArgMax outputs the indices of the top_k largest values (ties: the larger
// index first) of each item, or, with out_max_val, the values too. Without
// argmax_param.axis an item is everything after axis 0 and the top is
// [N, 1 or 2, top_k]: indices, then (with out_max_val) values; with an axis
// the top is the bottom with that axis replaced by top_k, holding the
// indices, or the values with out_max_val. It has no gradient.
type ArgMax struct {
	layerBase
	topK      int
	outMax    bool
	hasAxis   bool
	axisParam int
	axis      int
	pairs     []argPair
}

type argPair struct {
	v float32
	i int
}

var _ Layer = (*ArgMax)(nil)

func newArgMax(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetArgmaxParam())
	if p.GetTopK() < 1 {
		return nil, fmt.Errorf("argmax_param.top_k must be >= 1")
	}
	return &ArgMax{
		layerBase: newLayerBase("ArgMax", def, env),
		topK:      int(p.GetTopK()),
		outMax:    p.GetOutMaxVal(),
		hasAxis:   p.Axis != nil,
		axisParam: int(p.GetAxis()),
	}, nil
}

// Setup checks top_k against the bottom and shapes the top.
func (l *ArgMax) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the top.
func (l *ArgMax) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	var dim int
	if l.hasAxis {
		axis, err := canonicalAxis("argmax_param.axis", l.axisParam, b.NumAxes())
		if err != nil {
			return l.errorf("%w", err)
		}
		l.axis = axis
		dim = b.Dim(axis)
		if l.topK > dim {
			return l.errorf("top_k %d is larger than axis %d of the input (%d)", l.topK, axis, dim)
		}
		var buf [16]int
		shape := append(buf[:0], b.shape...)
		shape[axis] = l.topK
		top[0].Reshape(shape...)
	} else {
		if b.NumAxes() == 0 {
			return l.errorf("input is a scalar; it needs an item axis")
		}
		dim = b.CountFrom(1)
		if l.topK > dim {
			return l.errorf("top_k %d is larger than the %d values of each item", l.topK, dim)
		}
		n := max(b.NumAxes(), 3)
		var buf [16]int
		shape := buf[:n]
		if n > len(buf) {
			shape = make([]int, n)
		}
		for i := range shape {
			shape[i] = 1
		}
		shape[0] = b.Dim(0)
		shape[2] = l.topK
		if l.outMax {
			shape[1] = 2
		}
		top[0].Reshape(shape...)
	}
	if cap(l.pairs) < dim {
		l.pairs = make([]argPair, dim)
	}
	l.pairs = l.pairs[:dim]
	return nil
}

func greaterPair(a, b argPair) int {
	switch {
	case a.v > b.v:
		return -1
	case a.v < b.v:
		return 1
	case a.i > b.i:
		return -1
	case a.i < b.i:
		return 1
	}
	return 0
}

// Forward finds the largest values.
func (l *ArgMax) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	dim, dist := len(l.pairs), 1
	if l.hasAxis {
		dist = bottom[0].CountFrom(l.axis) / dim
	}
	if dim == 0 {
		return nil
	}
	num := len(x) / dim
	k := l.topK
	for i := range num {
		base := i/dist*dim*dist + i%dist
		for j := range l.pairs {
			l.pairs[j] = argPair{x[base+j*dist], j}
		}
		slices.SortFunc(l.pairs, greaterPair)
		for j := range k {
			p := l.pairs[j]
			switch {
			case l.hasAxis:
				v := float32(p.i)
				if l.outMax {
					v = p.v
				}
				y[(i/dist*k+j)*dist+i%dist] = v
			case l.outMax:
				y[2*i*k+j] = float32(p.i)
				y[2*i*k+k+j] = p.v
			default:
				y[i*k+j] = float32(p.i)
			}
		}
	}
	return nil
}

// Backward does nothing: ArgMax has no gradient.
func (l *ArgMax) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
