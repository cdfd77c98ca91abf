package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Scale", Bottoms: Between(1, 2), Tops: Exactly(1), New: newScale, Shape: ruleOf((*Scale).inferShapes)})
}

// broadcastGeom is how a per-position factor of shape p lines up with a
// bottom x: p covers x's axes [axis, axis+p.NumAxes()), so x is
// [outer, dim, inner] with dim = p.Count().
type broadcastGeom struct{ axis, outer, dim, inner int }

func newBroadcastGeom(x, p Shape, axisParam int) (broadcastGeom, error) {
	var g broadcastGeom
	if len(p) > 0 {
		a, err := canonicalAxis("axis", axisParam, len(x))
		if err != nil {
			return g, err
		}
		g.axis = a
	}
	if len(x) < g.axis+len(p) {
		return g, fmt.Errorf("a factor of shape %v does not fit an input of shape %v from axis %d", []int(p), []int(x), g.axis)
	}
	for i, d := range p {
		if x[g.axis+i] != d {
			return g, fmt.Errorf("a factor of shape %v does not match the input's shape %v from axis %d", []int(p), []int(x), g.axis)
		}
	}
	g.outer = x.count(0, g.axis)
	g.dim = p.Count()
	g.inner = x.count(g.axis+len(p), len(x))
	return g, nil
}

// broadcastOperand is what Scale and Bias share: where their operand (a
// learned blob, or the second bottom) lines up with the first bottom.
type broadcastOperand struct {
	axisParam, numAxes int
}

// learnedShape is the shape of a learned operand for a bottom of shape x:
// the axes [axis, axis+numAxes) of x (numAxes −1: through the last).
func (o broadcastOperand) learnedShape(x Shape) (Shape, error) {
	if o.numAxes < -1 {
		return nil, fmt.Errorf("num_axes %d must be >= -1", o.numAxes)
	}
	axis, err := canonicalAxis("axis", o.axisParam, len(x))
	if err != nil {
		return nil, err
	}
	end := len(x)
	if o.numAxes >= 0 {
		end = axis + o.numAxes
		if end > len(x) {
			return nil, fmt.Errorf("axis %d with num_axes %d goes past the %d axes of the input %v", axis, o.numAxes, len(x), []int(x))
		}
	}
	return append(Shape{}, x[axis:end]...), nil
}

// operandShape returns the operand's shape for bottoms of the given
// shapes (the second bottom's, or the learned blob's) and checks that it
// lines up with the first.
func (o broadcastOperand) operandShape(bottoms []Shape) (Shape, error) {
	if len(bottoms) > 1 {
		if _, err := newBroadcastGeom(bottoms[0], bottoms[1], o.axisParam); err != nil {
			return nil, err
		}
		return bottoms[1].clone(), nil
	}
	return o.learnedShape(bottoms[0])
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
	broadcastOperand
	hasBias bool
	geom    broadcastGeom
	temp    []float32 // the bottom, kept when computing in place
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
	return &Scale{
		layerBase:        newLayerBase("Scale", def, env),
		broadcastOperand: broadcastOperand{axisParam: int(p.GetAxis()), numAxes: int(p.GetNumAxes())},
		hasBias:          p.GetBiasTerm(),
	}, nil
}

// inferShapes is Scale's shape rule: the top keeps the bottom's shape; the
// learned factor (without a second bottom) and the bias have the
// operand's shape.
func (l *Scale) inferShapes(c *ShapeContext) error {
	n := 0
	if len(c.Bottoms) == 1 {
		n++
	}
	if l.hasBias {
		n++
	}
	c.Params = make([]Shape, n)
	if !c.Known() {
		return nil
	}
	shape, err := l.operandShape(c.Bottoms)
	if err != nil {
		return c.Errorf("%w", err)
	}
	for i := range c.Params {
		c.Params[i] = shape.clone()
	}
	c.Tops[0] = c.Bottoms[0].clone()
	return nil
}

// Setup creates the learned blobs and shapes the top.
func (l *Scale) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if len(bottom) == 2 && top[0] == bottom[1] {
		return l.errorf("cannot compute in place on the scale bottom")
	}
	p := orDefaults(l.def.GetScaleParam())
	shape, err := l.operandShape(blobShapes(bottom))
	if err != nil {
		return l.errorf("%w", err)
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
	g, err := newBroadcastGeom(bottom[0].shape, l.factor(bottom).shape, l.axisParam)
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
