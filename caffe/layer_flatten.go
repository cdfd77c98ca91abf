package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Flatten", Bottoms: Exactly(1), Tops: Exactly(1), New: newFlatten, Shape: ruleOf((*Flatten).inferShapes)})
}

// Flatten merges the axes axis..end_axis (flatten_param, defaults 1 and
// −1) into one. The top shares the bottom's values and gradient.
type Flatten struct {
	layerBase
	startParam, endParam int
}

var _ Layer = (*Flatten)(nil)

func newFlatten(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetFlattenParam()
	return &Flatten{layerBase: newLayerBase("Flatten", def, env), startParam: int(p.GetAxis()), endParam: int(p.GetEndAxis())}, nil
}

// Setup checks the blobs and shapes the top.
func (l *Flatten) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// topShape returns the top's shape for a bottom of shape b.
func (l *Flatten) topShape(b Shape) (Shape, error) {
	start, err := canonicalAxis("flatten_param.axis", l.startParam, len(b))
	if err != nil {
		return nil, err
	}
	end, err := canonicalAxis("flatten_param.end_axis", l.endParam, len(b))
	if err != nil {
		return nil, err
	}
	if end < start {
		return nil, fmt.Errorf("end_axis %d is before axis %d", end, start)
	}
	top := append(Shape{}, b[:start]...)
	top = append(top, b.count(start, end+1))
	return append(top, b[end+1:]...), nil
}

// inferShapes is Flatten's shape rule.
func (l *Flatten) inferShapes(c *ShapeContext) error {
	if c.InPlace(0) {
		return c.Errorf("cannot compute in place (top 0 is bottom 0)")
	}
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
func (l *Flatten) Reshape(bottom, top []*Blob) error {
	shape, err := l.topShape(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	shareReshaped(top[0], bottom[0], shape)
	return nil
}

// shareReshaped gives t the shape and b's values and gradient.
func shareReshaped(t, b *Blob, shape []int) {
	t.Reshape(shape...)
	t.ShareData(b)
	t.ShareDiff(b)
}

// Forward does nothing: the top shares the bottom's values.
func (l *Flatten) Forward(bottom, top []*Blob) error { return nil }

// Backward does nothing: the top shares the bottom's gradient.
func (l *Flatten) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}
