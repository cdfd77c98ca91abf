package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Im2col", Bottoms: Exactly(1), Tops: Exactly(1), New: newIm2colLayer,
		Shape: ruleOf(func(l *Im2colLayer, c *ShapeContext) error { return l.convSpec.inferShapes(c, convColumns) })})
}

// Im2colLayer is Caffe's Im2col layer: each sample's C×H×W input
// unrolled into the (C·kh·kw) × outH × outW columns a convolution with
// convolution_param would multiply (2-D, channel axis 1).
type Im2colLayer struct {
	layerBase
	convSpec
}

var _ Layer = (*Im2colLayer)(nil)

func newIm2colLayer(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	spec, err := newConvSpec(def, false) // num_output is not used
	if err != nil {
		return nil, err
	}
	if spec.axisParam != 1 {
		return nil, fmt.Errorf("convolution_param.axis = %d: Im2col supports the channel axis 1 only", spec.axisParam)
	}
	return &Im2colLayer{layerBase: newLayerBase("Im2col", def, env), convSpec: spec}, nil
}

// Setup checks the blobs.
func (l *Im2colLayer) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	if err := l.setup2D(bottom[0].NumAxes(), 1); err != nil {
		return l.errorf("input of shape %v: %w", bottom[0].shape, err)
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the columns.
func (l *Im2colLayer) Reshape(bottom, top []*Blob) error {
	b, c := bottom[0], l.convSpec
	if b.NumAxes() != 4 {
		return l.errorf("input of shape %v: want N×C×H×W", b.Shape())
	}
	oh := kernel.ConvOutSize(b.Dim(2), c.kh, c.padH, c.strideH, c.dilH)
	ow := kernel.ConvOutSize(b.Dim(3), c.kw, c.padW, c.strideW, c.dilW)
	if oh <= 0 || ow <= 0 {
		return l.errorf("input %d×%d is smaller than the %d×%d kernel", b.Dim(2), b.Dim(3), c.kh, c.kw)
	}
	top[0].Reshape(b.Dim(0), b.Dim(1)*c.kh*c.kw, oh, ow)
	return nil
}

// Forward unrolls every sample.
func (l *Im2colLayer) Forward(bottom, top []*Blob) error {
	b, c := bottom[0], l.convSpec
	in, out := b.CountFrom(1), top[0].CountFrom(1)
	x, y := b.DataSlice(), top[0].DataSlice()
	for n := 0; n < b.Dim(0); n++ {
		kernel.Im2col(x[n*in:(n+1)*in], b.Dim(1), b.Dim(2), b.Dim(3), c.kh, c.kw, c.padH, c.padW, c.strideH, c.strideW, c.dilH, c.dilW, y[n*out:(n+1)*out])
	}
	return nil
}

// Backward folds the columns' gradients back (col2im).
func (l *Im2colLayer) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	b, c := bottom[0], l.convSpec
	in, out := b.CountFrom(1), top[0].CountFrom(1)
	dx, dy := b.DiffSlice(), top[0].DiffSlice()
	for n := 0; n < b.Dim(0); n++ {
		kernel.Col2im(dy[n*out:(n+1)*out], b.Dim(1), b.Dim(2), b.Dim(3), c.kh, c.kw, c.padH, c.padW, c.strideH, c.strideW, c.dilH, c.dilW, dx[n*in:(n+1)*in])
	}
}
