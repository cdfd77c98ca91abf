package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Filter", Bottoms: AtLeast(2), Tops: AtLeast(1), New: newFilter, Shape: ruleOf((*Filter).inferShapes)})
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

// checkFilterTops checks that there is one top per bottom but the
// selector.
func checkFilterTops(bottoms, tops int) error {
	if tops != bottoms-1 {
		return fmt.Errorf("%d bottoms (the last the selector) need %d tops, got %d", bottoms, bottoms-1, tops)
	}
	return nil
}

// inferShapes is Filter's shape rule. How many samples pass depends on
// the selector's values, so the tops' shapes are unknown.
func (l *Filter) inferShapes(c *ShapeContext) error {
	if err := checkFilterTops(len(c.Bottoms), len(c.Tops)); err != nil {
		return c.Errorf("%w", err)
	}
	return nil
}

// Setup checks the blobs.
func (l *Filter) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := checkFilterTops(len(bottom), len(top)); err != nil {
		return l.errorf("%w", err)
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
