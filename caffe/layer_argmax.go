package caffe

import (
	"fmt"
	"slices"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "ArgMax", Bottoms: Exactly(1), Tops: Exactly(1), New: newArgMax, Shape: ruleOf((*ArgMax).inferShapes)})
}

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
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// topShape returns the top's shape for a bottom of shape b, with the axis
// the maxima are taken along (-1 for all but the first) and the number of
// values each maximum is taken over.
func (l *ArgMax) topShape(b Shape) (top Shape, axis, dim int, err error) {
	if l.hasAxis {
		if axis, err = canonicalAxis("argmax_param.axis", l.axisParam, len(b)); err != nil {
			return nil, 0, 0, err
		}
		if dim = b[axis]; l.topK > dim {
			return nil, 0, 0, fmt.Errorf("top_k %d is larger than axis %d of the input (%d)", l.topK, axis, dim)
		}
		top = b.clone()
		top[axis] = l.topK
		return top, axis, dim, nil
	}
	if len(b) == 0 {
		return nil, 0, 0, fmt.Errorf("input is a scalar; it needs an item axis")
	}
	if dim = b.count(1, len(b)); l.topK > dim {
		return nil, 0, 0, fmt.Errorf("top_k %d is larger than the %d values of each item", l.topK, dim)
	}
	top = make(Shape, max(len(b), 3))
	for i := range top {
		top[i] = 1
	}
	top[0] = b[0]
	top[2] = l.topK
	if l.outMax {
		top[1] = 2
	}
	return top, -1, dim, nil
}

// inferShapes is ArgMax's shape rule.
func (l *ArgMax) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, _, _, err := l.topShape(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Reshape shapes the top.
func (l *ArgMax) Reshape(bottom, top []*Blob) error {
	shape, axis, dim, err := l.topShape(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.axis = axis
	top[0].Reshape(shape...)
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
