package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	registerComputed("Im2col", newIm2colLayer)
	registerComputed("BatchReindex", newBatchReindex)
	registerComputed("Filter", newFilter)
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
	return &Im2colLayer{layerBase: newLayerBase("Im2col", def, env), convSpec: spec}, nil
}

// Setup checks the blobs.
func (l *Im2colLayer) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
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

// BatchReindex picks samples of bottom 0 by the indices in bottom 1: top
// sample i is bottom sample index[i] (indices may repeat). Bottom 0's
// gradient sums the gradients of its copies.
type BatchReindex struct{ layerBase }

var _ Layer = (*BatchReindex)(nil)

func newBatchReindex(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &BatchReindex{newLayerBase("BatchReindex", def, env)}, nil
}

// Setup checks the blobs.
func (l *BatchReindex) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, 2, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape gives the top one sample per index.
func (l *BatchReindex) Reshape(bottom, top []*Blob) error {
	if bottom[0].NumAxes() < 1 || bottom[1].NumAxes() != 1 {
		return l.errorf("want data of at least one axis and a 1-axis index blob, got %v and %v", bottom[0].Shape(), bottom[1].Shape())
	}
	shape := bottom[0].Shape()
	shape[0] = bottom[1].Dim(0)
	top[0].Reshape(shape...)
	return nil
}

// indices returns the indices as sample numbers, or an error.
func (l *BatchReindex) indices(bottom []*Blob) ([]int, error) {
	n := bottom[0].Dim(0)
	idx := make([]int, bottom[1].Count())
	for i, v := range bottom[1].DataSlice() {
		k := int(v)
		if float32(k) != v || k < 0 || k >= n {
			return nil, l.errorf("index %g at %d is not a sample in [0, %d)", v, i, n)
		}
		idx[i] = k
	}
	return idx, nil
}

// Forward copies the indexed samples.
func (l *BatchReindex) Forward(bottom, top []*Blob) error {
	idx, err := l.indices(bottom)
	if err != nil {
		return err
	}
	inner := bottom[0].CountFrom(1)
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for i, k := range idx {
		copy(y[i*inner:(i+1)*inner], x[k*inner:(k+1)*inner])
	}
	return nil
}

// Backward adds each copy's gradient to its source sample.
func (l *BatchReindex) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	idx, err := l.indices(bottom)
	if err != nil {
		return // Forward has reported it
	}
	inner := bottom[0].CountFrom(1)
	dx, dy := bottom[0].DiffSlice(), top[0].DiffSlice()
	clear(dx)
	for i, k := range idx {
		d := dx[k*inner : (k+1)*inner]
		for j, v := range dy[i*inner : (i+1)*inner] {
			d[j] += v
		}
	}
}

// Filter keeps the samples whose selector (the last bottom, one value per
// sample) is non-zero, in every other bottom: top i holds the kept
// samples of bottom i. The kept samples' gradients flow back; the others
// get zero.
type Filter struct {
	layerBase
	kept []int
}

var _ Layer = (*Filter)(nil)

func newFilter(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Filter{layerBase: newLayerBase("Filter", def, env)}, nil
}

// Setup checks the blobs.
func (l *Filter) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 2, -1, 1, -1); err != nil {
		return err
	}
	if len(top) != len(bottom)-1 {
		return l.errorf("%d bottoms (the last the selector) need %d tops, got %d", len(bottom), len(bottom)-1, len(top))
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape selects the samples (the selector is read here, as in Caffe)
// and shapes the tops.
func (l *Filter) Reshape(bottom, top []*Blob) error {
	sel := bottom[len(bottom)-1]
	n := sel.Count()
	for i, b := range bottom[:len(bottom)-1] {
		if b.NumAxes() < 1 || b.Dim(0) != n {
			return l.errorf("bottom %d has shape %v; want %d samples, one per selector value", i, b.Shape(), n)
		}
	}
	l.kept = l.kept[:0]
	for i, v := range sel.DataSlice() {
		if v != 0 {
			l.kept = append(l.kept, i)
		}
	}
	for i, b := range bottom[:len(bottom)-1] {
		shape := b.Shape()
		shape[0] = len(l.kept)
		top[i].Reshape(shape...)
	}
	return nil
}

// Forward copies the kept samples.
func (l *Filter) Forward(bottom, top []*Blob) error {
	if err := l.Reshape(bottom, top); err != nil {
		return err
	}
	for i, b := range bottom[:len(bottom)-1] {
		inner := b.CountFrom(1)
		x, y := b.DataSlice(), top[i].DataSlice()
		for j, k := range l.kept {
			copy(y[j*inner:(j+1)*inner], x[k*inner:(k+1)*inner])
		}
	}
	return nil
}

// Backward puts the kept samples' gradients back, zero elsewhere.
func (l *Filter) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	for i, b := range bottom[:len(bottom)-1] {
		if i >= len(propagateDown) || !propagateDown[i] {
			continue
		}
		inner := b.CountFrom(1)
		dx, dy := b.DiffSlice(), top[i].DiffSlice()
		clear(dx)
		for j, k := range l.kept {
			copy(dx[k*inner:(k+1)*inner], dy[j*inner:(j+1)*inner])
		}
	}
}
