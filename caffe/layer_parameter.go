package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Parameter", Bottoms: Exactly(0), Tops: Exactly(1), New: newParameter, Shape: ruleOf((*Parameter).inferShapes)})
}

// Parameter outputs a learned blob of parameter_param.shape, for nets that
// use a parameter as a bottom elsewhere. Its gradient is the top's.
type Parameter struct {
	layerBase
	shape Shape
}

var _ Layer = (*Parameter)(nil)

func newParameter(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	shape, err := shapeOfBlobShape(def.GetParameterParam().GetShape())
	if err != nil {
		return nil, fmt.Errorf("parameter_param.shape: %w", err)
	}
	return &Parameter{layerBase: newLayerBase("Parameter", def, env), shape: shape}, nil
}

// inferShapes is Parameter's shape rule: the top and the blob have
// parameter_param.shape.
func (l *Parameter) inferShapes(c *ShapeContext) error {
	c.Tops[0] = l.shape.clone()
	c.Params = []Shape{l.shape.clone()}
	return nil
}

// Setup creates the blob (zero-filled, as Caffe leaves it to be loaded).
func (l *Parameter) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.initParams([][]int{l.shape}, func(int, *Blob) error { return nil }); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape gives the top the blob's shape.
func (l *Parameter) Reshape(bottom, top []*Blob) error {
	top[0].ReshapeLike(l.blobs[0])
	return nil
}

// Forward copies the blob.
func (l *Parameter) Forward(bottom, top []*Blob) error {
	copy(top[0].DataSlice(), l.blobs[0].DataSlice())
	return nil
}

// Backward adds the top's gradient to the blob's.
func (l *Parameter) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !l.paramGrad(0) {
		return
	}
	d := l.blobs[0].DiffSlice()
	for i, v := range top[0].DiffSlice() {
		d[i] += v
	}
}
