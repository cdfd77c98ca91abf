package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	registerComputed("Scale", newScale)
	registerComputed("Bias", newBias)
}

// broadcastGeom is how a per-position factor of shape p lines up with a
// bottom x: p covers x's axes [axis, axis+p.NumAxes()), so x is
// [outer, dim, inner] with dim = p.Count().
type broadcastGeom struct{ axis, outer, dim, inner int }

func newBroadcastGeom(x, p *Blob, axisParam int) (broadcastGeom, error) {
	var g broadcastGeom
	if p.NumAxes() > 0 {
		a, err := canonicalAxis("axis", axisParam, x.NumAxes())
		if err != nil {
			return g, err
		}
		g.axis = a
	}
	if x.NumAxes() < g.axis+p.NumAxes() {
		return g, fmt.Errorf("a factor of shape %v does not fit an input of shape %v from axis %d", p.shape, x.shape, g.axis)
	}
	for i, d := range p.shape {
		if x.shape[g.axis+i] != d {
			return g, fmt.Errorf("a factor of shape %v does not match the input's shape %v from axis %d", p.shape, x.shape, g.axis)
		}
	}
	g.outer = x.CountRange(0, g.axis)
	g.dim = p.Count()
	g.inner = x.CountFrom(g.axis + p.NumAxes())
	return g, nil
}

// paramShape is the shape of a learned factor for bottom x: the axes
// [axis, axis+numAxes) of x (numAxes −1: through the last).
func paramShape(x *Blob, axisParam, numAxes int) ([]int, error) {
	if numAxes < -1 {
		return nil, fmt.Errorf("num_axes %d must be >= -1", numAxes)
	}
	axis, err := canonicalAxis("axis", axisParam, x.NumAxes())
	if err != nil {
		return nil, err
	}
	end := x.NumAxes()
	if numAxes >= 0 {
		end = axis + numAxes
		if end > x.NumAxes() {
			return nil, fmt.Errorf("axis %d with num_axes %d goes past the %d axes of the input %v", axis, numAxes, x.NumAxes(), x.shape)
		}
	}
	return append([]int{}, x.shape[axis:end]...), nil
}

// sumBroadcast adds to out[d] the sum of v over the outer and inner
// positions of a [outer, dim, inner] array.
func sumBroadcast(v []float32, g broadcastGeom, out []float32) {
	for o := range g.outer {
		for d := range g.dim {
			off := (o*g.dim + d) * g.inner
			out[d] += kernel.Sum(v[off : off+g.inner])
		}
	}
}

// Scale multiplies its bottom by a factor broadcast along axes [axis,
// axis+num_axes) (scale_param, defaults 1 and 1: one factor per channel):
// a learned blob (filler default constant 1), or the second bottom. With
// bias_term it adds a learned bias of the same shape (bias_filler default
// constant 0), whose blob follows the factor's. It may run in place.
type Scale struct {
	layerBase
	axisParam int
	hasBias   bool
	geom      broadcastGeom
	temp      []float32 // the bottom, kept when computing in place
}

var _ Layer = (*Scale)(nil)

func newScale(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetScaleParam())
	if err := CheckFiller(p.GetFiller()); err != nil {
		return nil, fmt.Errorf("scale_param.filler: %w", err)
	}
	if err := CheckFiller(p.GetBiasFiller()); err != nil {
		return nil, fmt.Errorf("scale_param.bias_filler: %w", err)
	}
	return &Scale{layerBase: newLayerBase("Scale", def, env), axisParam: int(p.GetAxis()), hasBias: p.GetBiasTerm()}, nil
}

// Setup creates the learned blobs and shapes the top.
func (l *Scale) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 2, 1, 1); err != nil {
		return err
	}
	if len(bottom) == 2 && top[0] == bottom[1] {
		return l.errorf("cannot compute in place on the scale bottom")
	}
	p := orDefaults(l.def.GetScaleParam())
	var shape []int
	if len(bottom) == 2 {
		shape = bottom[1].Shape()
	} else {
		s, err := paramShape(bottom[0], int(p.GetAxis()), int(p.GetNumAxes()))
		if err != nil {
			return l.errorf("%w", err)
		}
		shape = s
	}
	var shapes [][]int
	var fillers []*caffepb.FillerParameter
	if len(bottom) == 1 {
		shapes = append(shapes, shape)
		fillers = append(fillers, defaultFiller(p.GetFiller(), 1))
	}
	if l.hasBias {
		shapes = append(shapes, shape)
		fillers = append(fillers, defaultFiller(p.GetBiasFiller(), 0))
	}
	rng := l.fillRNG()
	if err := l.initParams(shapes, func(i int, b *Blob) error { return FillBlob(b, fillers[i], rng) }); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

func (l *Scale) factor(bottom []*Blob) *Blob {
	if len(bottom) > 1 {
		return bottom[1]
	}
	return l.blobs[0]
}

// Reshape checks the factor against the bottom and shapes the top.
func (l *Scale) Reshape(bottom, top []*Blob) error {
	g, err := newBroadcastGeom(bottom[0], l.factor(bottom), l.axisParam)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.geom = g
	if top[0] == bottom[0] {
		l.temp = growFloats(l.temp, bottom[0].Count())
	} else {
		top[0].ReshapeLike(bottom[0])
	}
	return nil
}

// Forward scales (and shifts).
func (l *Scale) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	if top[0] == bottom[0] {
		copy(l.temp, x)
	}
	s := l.factor(bottom).DataSlice()
	var b []float32
	if l.hasBias {
		b = l.blobs[len(l.blobs)-1].DataSlice()
	}
	g := l.geom
	for o := range g.outer {
		for d := range g.dim {
			off := (o*g.dim + d) * g.inner
			xs, ys := x[off:off+g.inner], y[off:off+g.inner]
			f := s[d]
			if b == nil {
				for i, v := range xs {
					ys[i] = v * f
				}
				continue
			}
			c := b[d]
			for i, v := range xs {
				ys[i] = v*f + c
			}
		}
	}
	return nil
}

// Backward computes the gradients of the bias, the factor and the bottom.
func (l *Scale) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	dy := top[0].DiffSlice()
	g := l.geom
	if l.hasBias && l.paramGrad(len(l.blobs)-1) {
		sumBroadcast(dy, g, l.blobs[len(l.blobs)-1].DiffSlice())
	}
	learned := len(bottom) == 1
	if learned && l.paramGrad(0) || !learned && len(propagateDown) > 1 && propagateDown[1] {
		x := bottom[0].DataSlice()
		if top[0] == bottom[0] {
			x = l.temp
		}
		ds := l.factor(bottom).DiffSlice()
		if !learned {
			clear(ds)
		}
		for o := range g.outer {
			for d := range g.dim {
				off := (o*g.dim + d) * g.inner
				ds[d] += kernel.Dot(dy[off:off+g.inner], x[off:off+g.inner])
			}
		}
	}
	if wantDown(propagateDown) {
		s := l.factor(bottom).DataSlice()
		dx := bottom[0].DiffSlice()
		for o := range g.outer {
			for d := range g.dim {
				off := (o*g.dim + d) * g.inner
				f := s[d]
				for i, v := range dy[off : off+g.inner] {
					dx[off+i] = v * f
				}
			}
		}
	}
}

// Bias adds to its bottom a bias broadcast along axes [axis,
// axis+num_axes) (bias_param, defaults 1 and 1): a learned blob (filler
// default constant 0), or the second bottom. It may run in place.
type Bias struct {
	layerBase
	axisParam int
	geom      broadcastGeom
}

var _ Layer = (*Bias)(nil)

func newBias(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	if err := CheckFiller(def.GetBiasParam().GetFiller()); err != nil {
		return nil, fmt.Errorf("bias_param.filler: %w", err)
	}
	return &Bias{layerBase: newLayerBase("Bias", def, env), axisParam: int(def.GetBiasParam().GetAxis())}, nil
}

// Setup creates the learned bias and shapes the top.
func (l *Bias) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 2, 1, 1); err != nil {
		return err
	}
	if len(bottom) == 2 && top[0] == bottom[1] {
		return l.errorf("cannot compute in place on the bias bottom")
	}
	if len(bottom) == 1 {
		p := orDefaults(l.def.GetBiasParam())
		shape, err := paramShape(bottom[0], int(p.GetAxis()), int(p.GetNumAxes()))
		if err != nil {
			return l.errorf("%w", err)
		}
		rng := l.fillRNG()
		if err := l.initParams([][]int{shape}, func(_ int, b *Blob) error { return FillBlob(b, p.GetFiller(), rng) }); err != nil {
			return err
		}
	}
	return l.Reshape(bottom, top)
}

func (l *Bias) bias(bottom []*Blob) *Blob {
	if len(bottom) > 1 {
		return bottom[1]
	}
	return l.blobs[0]
}

// Reshape checks the bias against the bottom and shapes the top.
func (l *Bias) Reshape(bottom, top []*Blob) error {
	g, err := newBroadcastGeom(bottom[0], l.bias(bottom), l.axisParam)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.geom = g
	if top[0] != bottom[0] {
		top[0].ReshapeLike(bottom[0])
	}
	return nil
}

// Forward adds the bias.
func (l *Bias) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	b := l.bias(bottom).DataSlice()
	g := l.geom
	for o := range g.outer {
		for d := range g.dim {
			off := (o*g.dim + d) * g.inner
			c := b[d]
			ys := y[off : off+g.inner]
			for i, v := range x[off : off+g.inner] {
				ys[i] = v + c
			}
		}
	}
	return nil
}

// Backward passes the gradient to the bottom and sums it into the bias.
func (l *Bias) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	dy := top[0].DiffSlice()
	if wantDown(propagateDown) && top[0] != bottom[0] {
		copy(bottom[0].DiffSlice(), dy)
	}
	learned := len(bottom) == 1
	if learned && l.paramGrad(0) || !learned && len(propagateDown) > 1 && propagateDown[1] {
		db := l.bias(bottom).DiffSlice()
		if !learned {
			clear(db)
		}
		sumBroadcast(dy, l.geom, db)
	}
}
