package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Concat", Bottoms: AtLeast(1), Tops: Exactly(1), New: newConcat, Shape: ruleOf((*Concat).inferShapes)})
}

// Concat joins its bottoms along an axis (concat_param.axis, default 1;
// the deprecated concat_dim may be given instead). The bottoms must agree
// in every other axis.
type Concat struct {
	layerBase
	axisParam   int
	legacyAxis  *uint32 // concat_dim
	axis        int
	outer, size int // count(0, axis), count(axis+1)
}

var _ Layer = (*Concat)(nil)

func newConcat(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetConcatParam())
	if p.Axis != nil && p.ConcatDim != nil {
		return nil, fmt.Errorf("either axis or concat_dim should be specified; not both")
	}
	return &Concat{layerBase: newLayerBase("Concat", def, env), axisParam: int(p.GetAxis()), legacyAxis: p.ConcatDim}, nil
}

// Setup checks the blobs and shapes the top.
func (l *Concat) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// topShape returns the top's shape for bottoms of the given shapes (their
// shape with the concatenation axis summed) and that axis.
func (l *Concat) topShape(bottoms []Shape) (Shape, int, error) {
	b0 := bottoms[0]
	axis, err := sharedAxis("concat_dim", l.legacyAxis, l.axisParam, len(b0))
	if err != nil {
		return nil, 0, err
	}
	top := b0.clone()
	for i, b := range bottoms[1:] {
		if len(b) != len(b0) {
			return nil, 0, fmt.Errorf("bottom %d has %d axes, bottom 0 has %d; all inputs must have the same number of axes", i+1, len(b), len(b0))
		}
		for j, d := range b {
			if j != axis && d != b0[j] {
				return nil, 0, fmt.Errorf("bottom %d has shape %v, bottom 0 has %v; all inputs must have the same shape except at the concatenation axis %d",
					i+1, []int(b), []int(b0), axis)
			}
		}
		top[axis] += b[axis]
	}
	return top, axis, nil
}

// inferShapes is Concat's shape rule.
func (l *Concat) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, _, err := l.topShape(c.Bottoms)
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Reshape shapes the top: the bottoms' shape with the concatenation axis
// summed.
func (l *Concat) Reshape(bottom, top []*Blob) error {
	shape, axis, err := l.topShape(blobShapes(bottom))
	if err != nil {
		return l.errorf("%w", err)
	}
	l.axis = axis
	b0 := bottom[0]
	top[0].Reshape(shape...)
	l.outer, l.size = b0.CountRange(0, axis), b0.CountFrom(axis+1)
	if len(bottom) == 1 {
		top[0].ShareData(b0)
		top[0].ShareDiff(b0)
	}
	return nil
}

// Forward copies the bottoms into the top.
func (l *Concat) Forward(bottom, top []*Blob) error {
	if len(bottom) == 1 {
		return nil
	}
	y := top[0].DataSlice()
	ta := top[0].Dim(l.axis)
	off := 0
	for _, b := range bottom {
		ba := b.Dim(l.axis)
		x := b.DataSlice()
		n := ba * l.size
		for o := range l.outer {
			copy(y[(o*ta+off)*l.size:(o*ta+off)*l.size+n], x[o*n:(o+1)*n])
		}
		off += ba
	}
	return nil
}

// Backward copies the top's gradient back into the bottoms.
func (l *Concat) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if len(bottom) == 1 {
		return
	}
	dy := top[0].DiffSlice()
	ta := top[0].Dim(l.axis)
	off := 0
	for i, b := range bottom {
		ba := b.Dim(l.axis)
		if i < len(propagateDown) && propagateDown[i] {
			dx := b.DiffSlice()
			n := ba * l.size
			for o := range l.outer {
				copy(dx[o*n:(o+1)*n], dy[(o*ta+off)*l.size:(o*ta+off)*l.size+n])
			}
		}
		off += ba
	}
}

// sharedAxis resolves the axis of Concat and Slice for an input of n axes:
// the deprecated uint32 field (concat_dim, slice_dim) if set, else axis.
func sharedAxis(legacyName string, legacy *uint32, axis, n int) (int, error) {
	if legacy != nil {
		a := int(*legacy)
		if a >= n {
			return 0, fmt.Errorf("%s %d out of range for a %d-axis blob", legacyName, a, n)
		}
		return a, nil
	}
	return canonicalAxis("axis", axis, n)
}
