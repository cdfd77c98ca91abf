package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Bias", Bottoms: Between(1, 2), Tops: Exactly(1), New: newBias, Shape: ruleOf((*Bias).inferShapes)})
}

// Bias adds to its bottom a bias broadcast along axes [axis,
// axis+num_axes) (bias_param, defaults 1 and 1): a learned blob (filler
// default constant 0), or the second bottom. It may run in place.
type Bias struct {
	layerBase
	broadcastOperand
	geom broadcastGeom
}

var _ Layer = (*Bias)(nil)

func newBias(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetBiasParam())
	if err := CheckFiller(p.GetFiller()); err != nil {
		return nil, fmt.Errorf("bias_param.filler: %w", err)
	}
	return &Bias{
		layerBase:        newLayerBase("Bias", def, env),
		broadcastOperand: broadcastOperand{axisParam: int(p.GetAxis()), numAxes: int(p.GetNumAxes())},
	}, nil
}

// inferShapes is Bias's shape rule: the top keeps the bottom's shape; a
// learned bias (without a second bottom) has the operand's shape.
func (l *Bias) inferShapes(c *ShapeContext) error {
	c.Params = make([]Shape, 0, 1)
	if len(c.Bottoms) == 1 {
		c.Params = append(c.Params, nil)
	}
	if !c.Known() {
		return nil
	}
	shape, err := l.operandShape(c.Bottoms)
	if err != nil {
		return c.Errorf("%w", err)
	}
	if len(c.Params) == 1 {
		c.Params[0] = shape
	}
	c.Tops[0] = c.Bottoms[0].clone()
	return nil
}

// Setup creates the learned bias and shapes the top.
func (l *Bias) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if len(bottom) == 2 && top[0] == bottom[1] {
		return l.errorf("cannot compute in place on the bias bottom")
	}
	if len(bottom) == 1 {
		shape, err := l.learnedShape(bottom[0].shape)
		if err != nil {
			return l.errorf("%w", err)
		}
		filler := l.def.GetBiasParam().GetFiller()
		rng := l.fillRNG()
		if err := l.initParams([][]int{shape}, func(_ int, b *Blob) error { return FillBlob(b, filler, rng) }); err != nil {
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
	g, err := newBroadcastGeom(bottom[0].shape, l.bias(bottom).shape, l.axisParam)
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
