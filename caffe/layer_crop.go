package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Crop", Bottoms: Exactly(2), Tops: Exactly(1), New: newCrop, Shape: ruleOf((*Crop).inferShapes)})
}

// Crop cuts bottom 0 to the shape of bottom 1 along the axes from
// crop_param.axis (default 2) on, starting at crop_param.offset (one for
// all those axes, or one each; default 0). Bottom 0 gets the gradient,
// zero outside the crop.
type Crop struct {
	layerBase
	axisParam int
	offset    []int // as given: none, one, or one per cropped axis
	offsets   []int // per axis of bottom 0
}

var _ Layer = (*Crop)(nil)

func newCrop(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetCropParam())
	l := &Crop{layerBase: newLayerBase("Crop", def, env), axisParam: int(p.GetAxis())}
	for _, o := range p.GetOffset() {
		l.offset = append(l.offset, int(o))
	}
	return l, nil
}

// geometry returns the offset along every axis of bottom 0 and the top's
// shape, for bottoms of shapes a and ref.
func (l *Crop) geometry(a, ref Shape) (offsets []int, top Shape, err error) {
	if len(a) != len(ref) {
		return nil, nil, fmt.Errorf("bottoms of %d and %d axes: want the same number", len(a), len(ref))
	}
	axis, err := canonicalAxis("crop_param.axis", l.axisParam, len(a))
	if err != nil {
		return nil, nil, err
	}
	if len(l.offset) > 1 && len(l.offset) != len(a)-axis {
		return nil, nil, fmt.Errorf("crop_param.offset has %d values; want 1 or one per cropped axis (%d)", len(l.offset), len(a)-axis)
	}
	offsets = make([]int, len(a))
	top = a.clone()
	for i := axis; i < len(a); i++ {
		o := 0
		switch len(l.offset) {
		case 0:
		case 1:
			o = l.offset[0]
		default:
			o = l.offset[i-axis]
		}
		if o+ref[i] > a[i] {
			return nil, nil, fmt.Errorf("axis %d: offset %d + size %d runs past the bottom's %d", i, o, ref[i], a[i])
		}
		offsets[i] = o
		top[i] = ref[i]
	}
	return offsets, top, nil
}

// inferShapes is Crop's shape rule.
func (l *Crop) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	_, top, err := l.geometry(c.Bottoms[0], c.Bottoms[1])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Setup checks the blobs.
func (l *Crop) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape computes the offsets and shapes the top.
func (l *Crop) Reshape(bottom, top []*Blob) error {
	offsets, shape, err := l.geometry(bottom[0].shape, bottom[1].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.offsets = offsets
	top[0].Reshape(shape...)
	return nil
}

// walk calls fn(src, dst, n) for every contiguous run of the crop: src in
// bottom 0, dst in the top, n values.
func (l *Crop) walk(a *Blob, t *Blob, fn func(src, dst, n int)) {
	nAxes := a.NumAxes()
	if nAxes == 0 {
		fn(0, 0, 1)
		return
	}
	inner := t.Dim(nAxes - 1)
	idx := make([]int, nAxes-1) // over the top's leading axes
	for dst := 0; dst < t.Count(); dst += inner {
		src := 0
		for i := 0; i < nAxes-1; i++ {
			src = src*a.Dim(i) + idx[i] + l.offsets[i]
		}
		src = src*a.Dim(nAxes-1) + l.offsets[nAxes-1]
		fn(src, dst, inner)
		for i := nAxes - 2; i >= 0; i-- {
			if idx[i]++; idx[i] < t.Dim(i) {
				break
			}
			idx[i] = 0
		}
	}
}

// Forward copies the crop.
func (l *Crop) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	l.walk(bottom[0], top[0], func(src, dst, n int) { copy(y[dst:dst+n], x[src:src+n]) })
	return nil
}

// Backward puts the top's gradient back at the crop, zero elsewhere.
func (l *Crop) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dx, dy := bottom[0].DiffSlice(), top[0].DiffSlice()
	clear(dx[:bottom[0].Count()])
	l.walk(bottom[0], top[0], func(src, dst, n int) { copy(dx[src:src+n], dy[dst:dst+n]) })
}
