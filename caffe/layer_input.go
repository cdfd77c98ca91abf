package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Input", Bottoms: Exactly(0), Tops: AtLeast(1), New: newInput, Shape: ruleOf((*Input).inferShapes)})
}

// Input holds the net's input blobs: it shapes its tops from
// input_param.shape (none, one for every top, or one per top) and leaves
// their values to the caller, who writes them before Forward.
type Input struct {
	layerBase
	shapes []Shape
}

var _ Layer = (*Input)(nil)

func newInput(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	l := &Input{layerBase: newLayerBase("Input", def, env)}
	for _, s := range def.GetInputParam().GetShape() {
		shape, err := shapeOfBlobShape(s)
		if err != nil {
			return nil, fmt.Errorf("input_param.shape: %w", err)
		}
		l.shapes = append(l.shapes, shape)
	}
	return l, nil
}

// shapeOfBlobShape converts a BlobShape, refusing negative or oversized
// dimensions.
func shapeOfBlobShape(s *caffepb.BlobShape) (Shape, error) {
	if len(s.GetDim()) > 32 {
		return nil, fmt.Errorf("%d axes, more than Caffe's 32", len(s.GetDim()))
	}
	shape := Shape{}
	for _, d := range s.GetDim() {
		shape = append(shape, format.ClampDim(d))
	}
	if _, err := format.ShapeCount(shape); err != nil {
		return nil, err
	}
	return shape, nil
}

// topShapes returns the shapes of n tops: one shape for every top, one
// per top, or none (nil: the caller shapes the tops).
func (l *Input) topShapes(n int) ([]Shape, error) {
	k := len(l.shapes)
	if k != 0 && k != 1 && k != n {
		return nil, fmt.Errorf("input_param gives %d shapes for %d tops; give 0, 1 or one per top", k, n)
	}
	tops := make([]Shape, n)
	for i := range tops {
		switch k {
		case 0:
		case 1:
			tops[i] = l.shapes[0].clone()
		default:
			tops[i] = l.shapes[i].clone()
		}
	}
	return tops, nil
}

// inferShapes is Input's shape rule.
func (l *Input) inferShapes(c *ShapeContext) error {
	tops, err := l.topShapes(len(c.Tops))
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops = tops
	return nil
}

// Setup shapes the tops.
func (l *Input) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	shapes, err := l.topShapes(len(top))
	if err != nil {
		return l.errorf("%w", err)
	}
	for i, t := range top {
		if shapes[i] != nil {
			t.Reshape(shapes[i]...)
		}
	}
	return nil
}

// Reshape keeps the shapes the caller gave the tops.
func (l *Input) Reshape(bottom, top []*Blob) error { return nil }

// Forward does nothing: the caller fills the tops.
func (l *Input) Forward(bottom, top []*Blob) error { return nil }

// Backward does nothing.
func (l *Input) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
