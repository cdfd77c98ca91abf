package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "BatchReindex", Bottoms: Exactly(2), Tops: Exactly(1), New: newBatchReindex, Shape: ruleOf((*BatchReindex).inferShapes)})
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
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// topShape returns the top's shape for data and indices of the given
// shapes: one sample per index.
func (l *BatchReindex) topShape(data, index Shape) (Shape, error) {
	if len(data) < 1 || len(index) != 1 {
		return nil, fmt.Errorf("want data of at least one axis and a 1-axis index blob, got %v and %v", []int(data), []int(index))
	}
	top := data.clone()
	top[0] = index[0]
	return top, nil
}

// inferShapes is BatchReindex's shape rule.
func (l *BatchReindex) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, err := l.topShape(c.Bottoms[0], c.Bottoms[1])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Reshape gives the top one sample per index.
func (l *BatchReindex) Reshape(bottom, top []*Blob) error {
	shape, err := l.topShape(bottom[0].shape, bottom[1].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
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
