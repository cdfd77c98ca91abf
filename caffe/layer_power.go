package caffe

import (
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Power", Bottoms: Exactly(1), Tops: Exactly(1), New: newPower, Shape: sameShapes})
}

// Power is (shift + scale·x)^power. Unless power is 1 its gradient needs
// the input, so it cannot run in place then.
type Power struct {
	neuron
	power, scale, shift float32
}

var _ Layer = (*Power)(nil)

func newPower(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetPowerParam())
	return &Power{neuron: neuron{newLayerBase("Power", def, env)},
		power: p.GetPower(), scale: p.GetScale(), shift: p.GetShift()}, nil
}

// Setup also rejects in-place use when the gradient needs the input.
func (l *Power) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if l.power != 1 && l.power*l.scale != 0 {
		if err := l.notInPlace(bottom, top); err != nil {
			return err
		}
	}
	return l.Reshape(bottom, top)
}

// Forward computes the power.
func (l *Power) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	if l.scale == 0 || l.power == 0 {
		v := float32(1)
		if l.power != 0 {
			v = float32(math.Pow(float64(l.shift), float64(l.power)))
		}
		fillFloats(y, v)
		return nil
	}
	for i, v := range x {
		b := l.shift + l.scale*v
		if l.power != 1 {
			b = float32(math.Pow(float64(b), float64(l.power)))
		}
		y[i] = b
	}
	return nil
}

// Backward multiplies by power·scale·(shift + scale·x)^(power−1), computed
// as Caffe does in its special cases.
func (l *Power) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	dy, dx := top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx, y = dy[:len(x)], dx[:len(x)], y[:len(x)]
	ds := l.power * l.scale
	switch {
	case ds == 0 || l.power == 1:
		for i := range dx {
			dx[i] = ds * dy[i]
		}
	case l.power == 2:
		// d/dx (shift + scale x)² = 2 scale (shift + scale x)
		for i, v := range x {
			dx[i] = (ds*l.shift + ds*l.scale*v) * dy[i]
		}
	case l.shift == 0:
		// d/dx (scale x)^p = p y / x
		for i, v := range x {
			dx[i] = l.power * y[i] / v * dy[i]
		}
	default:
		for i, v := range x {
			dx[i] = ds * y[i] / (l.shift + l.scale*v) * dy[i]
		}
	}
}
