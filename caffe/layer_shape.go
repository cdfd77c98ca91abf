package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	registerComputed("Concat", newConcat)
	registerComputed("Slice", newSlice)
	registerComputed("Split", newSplit)
	registerComputed("Flatten", newFlatten)
	registerComputed("Reshape", newReshape)
	registerComputed("Silence", newSilence)
}

// sharedAxis resolves the axis of Concat and Slice: the deprecated
// uint32 field (concat_dim, slice_dim) if set, else axis.
func sharedAxis(legacyName string, legacy *uint32, axis int, b *Blob) (int, error) {
	if legacy != nil {
		a := int(*legacy)
		if a >= b.NumAxes() {
			return 0, fmt.Errorf("%s %d out of range for a %d-axis blob", legacyName, a, b.NumAxes())
		}
		return a, nil
	}
	return canonicalAxis("axis", axis, b.NumAxes())
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
	if err := l.checkBlobs(bottom, top, 1, -1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the top: the bottoms' shape with the concatenation axis
// summed.
func (l *Concat) Reshape(bottom, top []*Blob) error {
	b0 := bottom[0]
	axis, err := sharedAxis("concat_dim", l.legacyAxis, l.axisParam, b0)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.axis = axis
	var buf [16]int
	shape := append(buf[:0], b0.shape...)
	for i, b := range bottom[1:] {
		if b.NumAxes() != b0.NumAxes() {
			return l.errorf("bottom %d has %d axes, bottom 0 has %d; all inputs must have the same number of axes", i+1, b.NumAxes(), b0.NumAxes())
		}
		for j, d := range b.shape {
			if j != axis && d != b0.shape[j] {
				return l.errorf("bottom %d has shape %v, bottom 0 has %v; all inputs must have the same shape except at the concatenation axis %d",
					i+1, b.shape, b0.shape, axis)
			}
		}
		shape[axis] += b.shape[axis]
	}
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
	if err := l.checkBlobs(bottom, top, 1, 1, 1, -1); err != nil {
		return err
	}
	for i, t := range top {
		if t == bottom[0] {
			return l.errorf("cannot compute in place (top %d is the bottom)", i)
		}
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the tops.
func (l *Slice) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	axis, err := sharedAxis("slice_dim", l.legacyAxis, l.axisParam, b)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.axis = axis
	l.outer, l.size = b.CountRange(0, axis), b.CountFrom(axis+1)
	extent := b.Dim(axis)
	var buf [16]int
	shape := append(buf[:0], b.shape...)
	if len(l.points) > 0 {
		if len(l.points) != len(top)-1 {
			return l.errorf("%d slice points for %d tops; give one fewer than the tops", len(l.points), len(top))
		}
		if last := l.points[len(l.points)-1]; last >= extent {
			return l.errorf("slice point %d is beyond axis %d of extent %d", last, axis, extent)
		}
		prev := 0
		for i, t := range top {
			end := extent
			if i < len(l.points) {
				end = l.points[i]
			}
			shape[axis] = end - prev
			t.Reshape(shape...)
			prev = end
		}
	} else {
		if extent%len(top) != 0 {
			return l.errorf("%d tops do not evenly divide axis %d of extent %d", len(top), axis, extent)
		}
		shape[axis] = extent / len(top)
		for _, t := range top {
			t.Reshape(shape...)
		}
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

// Split hands its bottom to several consumers: every top shares the
// bottom's values, and the bottom's gradient is the sum of the tops'.
// Nets insert it where a blob feeds more than one layer.
type Split struct{ layerBase }

var _ Layer = (*Split)(nil)

func newSplit(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Split{newLayerBase("Split", def, env)}, nil
}

// Setup checks the blobs and shapes the tops.
func (l *Split) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, -1); err != nil {
		return err
	}
	for i, t := range top {
		if t == bottom[0] {
			return l.errorf("cannot compute in place (top %d is the bottom)", i)
		}
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the tops as the bottom and shares its values.
func (l *Split) Reshape(bottom, top []*Blob) error {
	for _, t := range top {
		t.ReshapeLike(bottom[0])
		t.ShareData(bottom[0])
	}
	return nil
}

// Forward shares the bottom's values with the tops again (in case the
// bottom's storage moved).
func (l *Split) Forward(bottom, top []*Blob) error {
	for _, t := range top {
		t.ShareData(bottom[0])
	}
	return nil
}

// Backward sums the tops' gradients.
func (l *Split) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dx := bottom[0].DiffSlice()
	if len(top) == 1 {
		copy(dx, top[0].DiffSlice())
		return
	}
	kernel.Add(dx, top[0].DiffSlice(), top[1].DiffSlice())
	for _, t := range top[2:] {
		kernel.Add(dx, dx, t.DiffSlice())
	}
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
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the top and shares the bottom's storage.
func (l *Flatten) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	start, err := canonicalAxis("flatten_param.axis", l.startParam, b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	end, err := canonicalAxis("flatten_param.end_axis", l.endParam, b.NumAxes())
	if err != nil {
		return l.errorf("%w", err)
	}
	if end < start {
		return l.errorf("end_axis %d is before axis %d", end, start)
	}
	var buf [16]int
	shape := append(buf[:0], b.shape[:start]...)
	shape = append(shape, b.CountRange(start, end+1))
	shape = append(shape, b.shape[end+1:]...)
	shareReshaped(top[0], b, shape)
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

// Reshape changes the shape of its bottom without moving values, as
// reshape_param says: the axes axis .. axis+num_axes (defaults: all) are
// replaced by shape.dim, where 0 copies the bottom's extent and one −1 is
// inferred. The top shares the bottom's values and gradient.
type Reshape struct {
	layerBase
	dims     []int
	copyAxes []int
	inferred int
	constant int
	axis     int
	numAxes  int
}

var _ Layer = (*Reshape)(nil)

func newReshape(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetReshapeParam())
	l := &Reshape{layerBase: newLayerBase("Reshape", def, env), inferred: -1, constant: 1,
		axis: int(p.GetAxis()), numAxes: int(p.GetNumAxes())}
	for i, d := range p.GetShape().GetDim() {
		switch {
		case d == 0:
			l.copyAxes = append(l.copyAxes, i)
		case d == -1:
			if l.inferred >= 0 {
				return nil, fmt.Errorf("new shape %v contains more than one -1", p.GetShape().GetDim())
			}
			l.inferred = i
		case d < -1:
			return nil, fmt.Errorf("new shape %v: dimension %d is invalid (use 0 to copy, -1 to infer)", p.GetShape().GetDim(), d)
		default:
			l.constant *= int(d)
		}
		l.dims = append(l.dims, int(d))
	}
	if p.GetNumAxes() < -1 {
		return nil, fmt.Errorf("reshape_param.num_axes %d must be >= -1", p.GetNumAxes())
	}
	return l, nil
}

// Setup checks the blobs and shapes the top.
func (l *Reshape) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the top and shares the bottom's storage.
func (l *Reshape) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	n := b.NumAxes()
	start := l.axis
	if start < 0 {
		start += n + 1
	}
	if start < 0 || start > n {
		return l.errorf("reshape_param.axis %d out of range for a %d-axis input", l.axis, n)
	}
	end := n
	if l.numAxes != -1 {
		end = start + l.numAxes
	}
	if end > n {
		return l.errorf("reshape_param axis %d with num_axes %d goes past the %d input axes", start, l.numAxes, n)
	}
	var buf [16]int
	shape := append(buf[:0], b.shape[:start]...)
	shape = append(shape, l.dims...)
	shape = append(shape, b.shape[end:]...)
	for _, i := range l.copyAxes {
		if start+i >= n {
			return l.errorf("new shape has a 0 at position %d but the input (shape %v) has no axis %d to copy", i, b.shape, start+i)
		}
		shape[start+i] = b.shape[start+i]
	}
	if l.inferred >= 0 {
		explicit := l.constant * b.CountRange(0, start) * b.CountFrom(end)
		for _, i := range l.copyAxes {
			explicit *= b.shape[start+i]
		}
		if explicit == 0 || b.Count()%explicit != 0 {
			return l.errorf("cannot infer the -1 dimension: %d input values are not a multiple of %d", b.Count(), explicit)
		}
		shape[start+l.inferred] = b.Count() / explicit
	}
	count := 1
	for _, d := range shape {
		count *= d
	}
	if count != b.Count() {
		return l.errorf("new shape %v has %d values, the input (shape %v) has %d", shape, count, b.shape, b.Count())
	}
	shareReshaped(top[0], b, shape)
	return nil
}

// Forward does nothing: the top shares the bottom's values.
func (l *Reshape) Forward(bottom, top []*Blob) error { return nil }

// Backward does nothing: the top shares the bottom's gradient.
func (l *Reshape) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {}

// Silence consumes blobs that nothing else uses, so that they are not net
// outputs. Its bottoms' gradients are zero.
type Silence struct{ layerBase }

var _ Layer = (*Silence)(nil)

func newSilence(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Silence{newLayerBase("Silence", def, env)}, nil
}

// Setup checks the blobs.
func (l *Silence) Setup(bottom, top []*Blob) error {
	return l.checkBlobs(bottom, top, 1, -1, 0, 0)
}

// Reshape does nothing.
func (l *Silence) Reshape(bottom, top []*Blob) error { return nil }

// Forward does nothing.
func (l *Silence) Forward(bottom, top []*Blob) error { return nil }

// Backward zeroes the gradients of the bottoms asked for.
func (l *Silence) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	for i, b := range bottom {
		if i < len(propagateDown) && propagateDown[i] {
			b.ZeroDiff()
		}
	}
}
