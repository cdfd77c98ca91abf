package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Eltwise", Bottoms: AtLeast(2), Tops: Exactly(1), New: newEltwise, Shape: ruleOf((*Eltwise).inferShapes)})
}

// Eltwise combines bottoms of one shape element by element: SUM (the
// default; with eltwise_param.coeff, one per bottom, a weighted sum), PROD
// or MAX (the first bottom holding the maximum wins, except that between
// the first two bottoms a tie goes to the second, as in Caffe).
type Eltwise struct {
	layerBase
	op     caffepb.EltwiseParameter_EltwiseOp
	coeff  []float32
	stable bool
	argmax []int32
}

var _ Layer = (*Eltwise)(nil)

func newEltwise(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetEltwiseParam())
	l := &Eltwise{layerBase: newLayerBase("Eltwise", def, env), op: p.GetOperation(), stable: p.GetStableProdGrad()}
	switch l.op {
	case caffepb.EltwiseParameter_SUM, caffepb.EltwiseParameter_PROD, caffepb.EltwiseParameter_MAX:
	default:
		return nil, fmt.Errorf("unknown eltwise operation %v; known: PROD, SUM, MAX", l.op)
	}
	if len(p.GetCoeff()) > 0 && l.op != caffepb.EltwiseParameter_SUM {
		return nil, fmt.Errorf("eltwise_param.coeff is only for the SUM operation")
	}
	l.coeff = append([]float32(nil), p.GetCoeff()...)
	return l, nil
}

// check checks bottoms of the given shapes against the coefficients and
// each other.
func (l *Eltwise) check(bottoms []Shape) error {
	if len(l.coeff) > 0 && len(l.coeff) != len(bottoms) {
		return fmt.Errorf("%d coefficients for %d bottoms; give one per bottom", len(l.coeff), len(bottoms))
	}
	for i, b := range bottoms[1:] {
		if b.Known() && bottoms[0].Known() && !b.equal(bottoms[0]) {
			return fmt.Errorf("bottom %d has shape %v, bottom 0 has %v; all bottoms must have the same shape", i+1, []int(b), []int(bottoms[0]))
		}
	}
	return nil
}

// inferShapes is Eltwise's shape rule: the top has the bottoms' shape.
func (l *Eltwise) inferShapes(c *ShapeContext) error {
	if err := l.check(c.Bottoms); err != nil {
		return c.Errorf("%w", err)
	}
	if c.Known() {
		c.Tops[0] = c.Bottoms[0].clone()
	}
	return nil
}

// Setup checks the blobs and the coefficients and shapes the top.
func (l *Eltwise) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if err := l.check(blobShapes(bottom)); err != nil {
		return l.errorf("%w", err)
	}
	if l.coeff == nil {
		l.coeff = make([]float32, len(bottom))
		for i := range l.coeff {
			l.coeff[i] = 1
		}
	}
	for i, b := range bottom {
		// SUM and MAX may write over the first bottom; the product's
		// gradient reads every bottom.
		if b == top[0] && (i > 0 || l.op == caffepb.EltwiseParameter_PROD) {
			return l.errorf("cannot compute in place on bottom %d", i)
		}
	}
	return l.Reshape(bottom, top)
}

// Reshape checks that the bottoms agree and shapes the top.
func (l *Eltwise) Reshape(bottom, top []*Blob) error {
	if err := l.check(blobShapes(bottom)); err != nil {
		return l.errorf("%w", err)
	}
	top[0].ReshapeLike(bottom[0])
	if l.op == caffepb.EltwiseParameter_MAX {
		n := bottom[0].Count()
		if cap(l.argmax) < n {
			l.argmax = make([]int32, n)
		}
		l.argmax = l.argmax[:n]
	}
	return nil
}

// Forward combines the bottoms.
func (l *Eltwise) Forward(bottom, top []*Blob) error {
	y := top[0].DataSlice()
	switch l.op {
	case caffepb.EltwiseParameter_PROD:
		kernel.Mul(y, bottom[0].DataSlice(), bottom[1].DataSlice())
		for _, b := range bottom[2:] {
			kernel.Mul(y, y, b.DataSlice())
		}
	case caffepb.EltwiseParameter_SUM:
		a, c0 := bottom[0].DataSlice(), l.coeff[0]
		for i := range y {
			y[i] = c0 * a[i]
		}
		for i, b := range bottom[1:] {
			kernel.Axpy(l.coeff[i+1], b.DataSlice(), y)
		}
	case caffepb.EltwiseParameter_MAX:
		a, b := bottom[0].DataSlice(), bottom[1].DataSlice()
		for i := range y {
			if a[i] > b[i] {
				y[i], l.argmax[i] = a[i], 0
			} else {
				y[i], l.argmax[i] = b[i], 1
			}
		}
		for k, bb := range bottom[2:] {
			x := bb.DataSlice()
			for i, v := range x {
				if v > y[i] {
					y[i], l.argmax[i] = v, int32(k+2)
				}
			}
		}
	}
	return nil
}

// Backward computes each asked-for bottom's gradient.
func (l *Eltwise) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	y, dy := top[0].DataSlice(), top[0].DiffSlice()
	for i, b := range bottom {
		if i >= len(propagateDown) || !propagateDown[i] {
			continue
		}
		x, dx := b.DataSlice(), b.DiffSlice()
		switch l.op {
		case caffepb.EltwiseParameter_PROD:
			if l.stable {
				first := true
				for j, o := range bottom {
					if j == i {
						continue
					}
					if first {
						copy(dx, o.DataSlice())
						first = false
					} else {
						kernel.Mul(dx, dx, o.DataSlice())
					}
				}
			} else {
				for k := range dx {
					dx[k] = y[k] / x[k]
				}
			}
			kernel.Mul(dx, dx, dy)
		case caffepb.EltwiseParameter_SUM:
			c := l.coeff[i]
			if c == 1 {
				copy(dx, dy)
			} else {
				for k, g := range dy {
					dx[k] = c * g
				}
			}
		case caffepb.EltwiseParameter_MAX:
			for k, g := range dy {
				if int(l.argmax[k]) == i {
					dx[k] = g
				} else {
					dx[k] = 0
				}
			}
		}
	}
}
