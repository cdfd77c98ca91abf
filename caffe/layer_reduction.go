package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Reduction", Bottoms: Exactly(1), Tops: Exactly(1), New: newReduction, Shape: ruleOf((*Reduction).inferShapes)})
}

// Reduction reduces the axes from reduction_param.axis (default 0) on to
// one value, times coeff (default 1): SUM, ASUM (of absolute values),
// SUMSQ (of squares) or MEAN. Its top has the bottom's leading axes.
type Reduction struct {
	layerBase
	op           caffepb.ReductionParameter_ReductionOp
	coeff        float32
	axisParam    int
	outer, inner int
}

var _ Layer = (*Reduction)(nil)

func newReduction(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetReductionParam())
	return &Reduction{layerBase: newLayerBase("Reduction", def, env), op: p.GetOperation(), coeff: p.GetCoeff(), axisParam: int(p.GetAxis())}, nil
}

// topShape returns the top's shape for a bottom of shape b: its axes
// before the reduced ones.
func (l *Reduction) topShape(b Shape) (Shape, int, error) {
	axis, err := canonicalAxis("reduction_param.axis", l.axisParam, len(b))
	if err != nil {
		return nil, 0, err
	}
	return append(Shape{}, b[:axis]...), axis, nil
}

// inferShapes is Reduction's shape rule.
func (l *Reduction) inferShapes(c *ShapeContext) error {
	if !c.Known() {
		return nil
	}
	top, _, err := l.topShape(c.Bottoms[0])
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Tops[0] = top
	return nil
}

// Setup checks the blobs.
func (l *Reduction) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape keeps the leading axes.
func (l *Reduction) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	shape, axis, err := l.topShape(b.shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	top[0].Reshape(shape...)
	l.outer, l.inner = b.CountRange(0, axis), b.CountFrom(axis)
	return nil
}

// Forward reduces.
func (l *Reduction) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	for o := 0; o < l.outer; o++ {
		var s float32
		for _, v := range x[o*l.inner : (o+1)*l.inner] {
			switch l.op {
			case caffepb.ReductionParameter_ASUM:
				s += float32(math.Abs(float64(v)))
			case caffepb.ReductionParameter_SUMSQ:
				s += v * v
			default:
				s += v
			}
		}
		if l.op == caffepb.ReductionParameter_MEAN {
			s /= float32(max(1, l.inner))
		}
		y[o] = l.coeff * s
	}
	return nil
}

// Backward spreads each output's gradient over its inputs.
func (l *Reduction) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dx, dy := bottom[0].DataSlice(), bottom[0].DiffSlice(), top[0].DiffSlice()
	for o := 0; o < l.outer; o++ {
		g := l.coeff * dy[o]
		if l.op == caffepb.ReductionParameter_MEAN {
			g /= float32(max(1, l.inner))
		}
		for i := o * l.inner; i < (o+1)*l.inner; i++ {
			switch l.op {
			case caffepb.ReductionParameter_ASUM:
				switch {
				case x[i] > 0:
					dx[i] = g
				case x[i] < 0:
					dx[i] = -g
				default:
					dx[i] = 0
				}
			case caffepb.ReductionParameter_SUMSQ:
				dx[i] = 2 * g * x[i]
			default:
				dx[i] = g
			}
		}
	}
}
