package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Reshape", Bottoms: Exactly(1), Tops: Exactly(1), New: newReshape, Shape: ruleOf((*Reshape).inferShapes)})
}

// Reshape changes the shape of its bottom without moving values, as
// reshape_param says: the axes axis .. axis+num_axes (defaults: all) are
// replaced by shape.dim, where 0 copies the bottom's extent and one −1 is
// inferred. The top shares the bottom's values and gradient.
type Reshape struct {
	layerBase
	dims     []int
	copyAxes []int
	inferred int
	constant int
	axis     int
	numAxes  int
}

var _ Layer = (*Reshape)(nil)

func newReshape(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetReshapeParam())
	l := &Reshape{layerBase: newLayerBase("Reshape", def, env), inferred: -1, constant: 1,
		axis: int(p.GetAxis()), numAxes: int(p.GetNumAxes())}
	for i, d := range p.GetShape().GetDim() {
		switch {
		case d == 0:
			l.copyAxes = append(l.copyAxes, i)
		case d == -1:
			if l.inferred >= 0 {
				return nil, fmt.Errorf("new shape %v contains more than one -1", p.GetShape().GetDim())
			}
			l.inferred = i
		case d < -1:
			return nil, fmt.Errorf("new shape %v: dimension %d is invalid (use 0 to copy, -1 to infer)", p.GetShape().GetDim(), d)
		case d > math.MaxInt32:
			return nil, fmt.Errorf("new shape %v: dimension %d is larger than a blob can hold", p.GetShape().GetDim(), d)
		default:
			l.constant *= int(d)
		}
		l.dims = append(l.dims, int(d))
	}
	if p.GetNumAxes() < -1 {
		return nil, fmt.Errorf("reshape_param.num_axes %d must be >= -1", p.GetNumAxes())
	}
	return l, nil
}

// Setup checks the blobs and shapes the top.
func (l *Reshape) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// topShape returns the top's shape for a bottom of shape b.
func (l *Reshape) topShape(b Shape) (Shape, error) {
	n := len(b)
	start := l.axis
	if start < 0 {
		start += n + 1
	}
	if start < 0 || start > n {
		return nil, fmt.Errorf("reshape_param.axis %d out of range for a %d-axis input", l.axis, n)
	}
	end := n
	if l.numAxes != -1 {
		end = start + l.numAxes
	}
	if end > n {
		return nil, fmt.Errorf("reshape_param axis %d with num_axes %d goes past the %d input axes", start, l.numAxes, n)
	}
	shape := append(Shape{}, b[:start]...)
	shape = append(shape, l.dims...)
	shape = append(shape, b[end:]...)
	for _, i := range l.copyAxes {
		if start+i >= n {
			return nil, fmt.Errorf("new shape has a 0 at position %d but the input (shape %v) has no axis %d to copy", i, []int(b), start+i)
		}
		shape[start+i] = b[start+i]
	}
	if l.inferred >= 0 {
		explicit := l.constant * b.count(0, start) * b.count(end, n)
		for _, i := range l.copyAxes {
			explicit *= b[start+i]
		}
		if explicit == 0 || b.Count()%explicit != 0 {
			return nil, fmt.Errorf("cannot infer the -1 dimension: %d input values are not a multiple of %d", b.Count(), explicit)
		}
		shape[start+l.inferred] = b.Count() / explicit
	}
	if shape.Count() != b.Count() {
		return nil, fmt.Errorf("new shape %v has %d values, the input (shape %v) has %d", []int(shape), shape.Count(), []int(b), b.Count())
	}
	return shape, nil
}

// inferShapes is Reshape's shape rule.
func (l *Reshape) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, err := l.topShape(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Reshape shapes the top and shares the bottom's storage.
func (l *Reshape) Reshape(bottom, top []*Blob) error {
	shape, err := l.topShape(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	shareReshaped(top[0], bottom[0], shape)
	return nil
}

// Forward does nothing: the top shares the bottom's values.
func (l *Reshape) Forward(bottom, top []*Blob) error { return nil }

// Backward does nothing: the top shares the bottom's gradient.
func (l *Reshape) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
