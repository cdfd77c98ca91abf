package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Slice", Bottoms: Exactly(1), Tops: AtLeast(1), New: newSlice, Shape: ruleOf((*Slice).inferShapes)})
}

// Slice cuts its bottom along an axis (slice_param.axis, default 1; the
// deprecated slice_dim may be given instead) at the slice_points, or into
// equal parts when there are none.
type Slice struct {
	layerBase
	axisParam   int
	legacyAxis  *uint32 // slice_dim
	axis        int
	outer, size int
	points      []int
}

var _ Layer = (*Slice)(nil)

func newSlice(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetSliceParam())
	if p.Axis != nil && p.SliceDim != nil {
		return nil, fmt.Errorf("either axis or slice_dim should be specified; not both")
	}
	l := &Slice{layerBase: newLayerBase("Slice", def, env), axisParam: int(p.GetAxis()), legacyAxis: p.SliceDim}
	prev := 0
	for _, sp := range p.GetSlicePoint() {
		if int(sp) <= prev {
			return nil, fmt.Errorf("slice points %v must be positive and ascending", p.GetSlicePoint())
		}
		prev = int(sp)
		l.points = append(l.points, int(sp))
	}
	return l, nil
}

// Setup checks the blobs and shapes the tops.
func (l *Slice) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	for i, t := range top {
		if t == bottom[0] {
			return l.errorf("cannot compute in place (top %d is the bottom)", i)
		}
	}
	return l.Reshape(bottom, top)
}

// topShapes returns the shapes of n tops for a bottom of shape b, and the
// axis it is cut along.
func (l *Slice) topShapes(b Shape, n int) ([]Shape, int, error) {
	axis, err := sharedAxis("slice_dim", l.legacyAxis, l.axisParam, len(b))
	if err != nil {
		return nil, 0, err
	}
	extent := b[axis]
	tops := make([]Shape, n)
	if len(l.points) > 0 {
		if len(l.points) != n-1 {
			return nil, 0, fmt.Errorf("%d slice points for %d tops; give one fewer than the tops", len(l.points), n)
		}
		if last := l.points[len(l.points)-1]; last >= extent {
			return nil, 0, fmt.Errorf("slice point %d is beyond axis %d of extent %d", last, axis, extent)
		}
		prev := 0
		for i := range tops {
			end := extent
			if i < len(l.points) {
				end = l.points[i]
			}
			tops[i] = b.clone()
			tops[i][axis] = end - prev
			prev = end
		}
		return tops, axis, nil
	}
	if extent%n != 0 {
		return nil, 0, fmt.Errorf("%d tops do not evenly divide axis %d of extent %d", n, axis, extent)
	}
	for i := range tops {
		tops[i] = b.clone()
		tops[i][axis] = extent / n
	}
	return tops, axis, nil
}

// inferShapes is Slice's shape rule.
func (l *Slice) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	tops, _, err := l.topShapes(c.Bottoms[0], len(c.Tops))
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops = tops
	return nil
}

// Reshape shapes the tops.
func (l *Slice) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	shapes, axis, err := l.topShapes(b.shape, len(top))
	if err != nil {
		return l.errorf("%w", err)
	}
	l.axis = axis
	l.outer, l.size = b.CountRange(0, axis), b.CountFrom(axis+1)
	for i, t := range top {
		t.Reshape(shapes[i]...)
	}
	if len(top) == 1 {
		top[0].ShareData(b)
		top[0].ShareDiff(b)
	}
	return nil
}

// Forward copies the slices into the tops.
func (l *Slice) Forward(bottom, top []*Blob) error {
	if len(top) == 1 {
		return nil
	}
	x := bottom[0].DataSlice()
	ba := bottom[0].Dim(l.axis)
	off := 0
	for _, t := range top {
		ta := t.Dim(l.axis)
		y := t.DataSlice()
		n := ta * l.size
		for o := range l.outer {
			copy(y[o*n:(o+1)*n], x[(o*ba+off)*l.size:(o*ba+off)*l.size+n])
		}
		off += ta
	}
	return nil
}

// Backward copies the tops' gradients into the bottom's.
func (l *Slice) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) || len(top) == 1 {
		return
	}
	dx := bottom[0].DiffSlice()
	ba := bottom[0].Dim(l.axis)
	off := 0
	for _, t := range top {
		ta := t.Dim(l.axis)
		dy := t.DiffSlice()
		n := ta * l.size
		for o := range l.outer {
			copy(dx[(o*ba+off)*l.size:(o*ba+off)*l.size+n], dy[o*n:(o+1)*n])
		}
		off += ta
	}
}
