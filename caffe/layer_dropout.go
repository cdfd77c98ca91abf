package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Dropout", Bottoms: Exactly(1), Tops: Exactly(1), New: newDropout, Shape: sameShapes})
}

// Dropout zeroes each value with probability dropout_ratio in the TRAIN
// phase and scales the others by 1/(1 − dropout_ratio) (inverted
// dropout); in TEST it passes values through. It may run in place.
type Dropout struct {
	neuron
	ratio float32
	scale float32
	// keepBelow is the number of 24-bit draws that keep a value: a draw
	// u keeps it when u/2²⁴ < 1 − ratio, which is u < keepBelow.
	keepBelow uint64
	rng       *ndarray.RNG
	mask      []uint32 // all ones where the value is kept, else 0
}

var _ Layer = (*Dropout)(nil)

// dropoutStream separates the dropout masks' random stream from the
// fillers' stream of the same seed.
const dropoutStream = 0x6a09e667f3bcc908

func newDropout(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	ratio := def.GetDropoutParam().GetDropoutRatio()
	if !(ratio >= 0 && ratio < 1) {
		return nil, fmt.Errorf("dropout_ratio %g must be in [0, 1)", ratio)
	}
	l := &Dropout{neuron: neuron{newLayerBase("Dropout", def, env)}, ratio: ratio, scale: 1 / (1 - ratio)}
	l.keepBelow = uint64(math.Ceil(float64(1-ratio) * (1 << 24)))
	l.rng = ndarray.NewRNG(l.env.Seed ^ dropoutStream)
	return l, nil
}

// Setup checks the blobs and shapes the top and the mask.
func (l *Dropout) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape also sizes the mask.
func (l *Dropout) Reshape(bottom, top []*Blob) error {
	if err := l.neuron.Reshape(bottom, top); err != nil {
		return err
	}
	n := bottom[0].Count()
	if cap(l.mask) < n {
		l.mask = make([]uint32, n)
	}
	l.mask = l.mask[:n]
	return nil
}

// Forward drops values (TRAIN) or copies them (TEST).
func (l *Dropout) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	if !l.train() {
		copy(y, x)
		return nil
	}
	// A value is kept when the stream's next Float32 is below 1 − ratio,
	// as Caffe's bernoulli draws; the comparison is made on the draw's 24
	// bits, and the value masked without a branch.
	mask := l.mask[:len(x)]
	for i, v := range x {
		u := l.rng.Uint64() >> 32 & (1<<24 - 1)
		m := uint32(int64(u-l.keepBelow) >> 63) // all ones if u < keepBelow
		mask[i] = m
		y[i] = math.Float32frombits(math.Float32bits(v*l.scale) & m)
	}
	return nil
}

// Backward applies the same mask and scale to the gradient.
func (l *Dropout) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	dy, dx := top[0].DiffSlice(), bottom[0].DiffSlice()
	dx = dx[:len(dy)]
	if !l.train() {
		copy(dx, dy)
		return
	}
	mask := l.mask[:len(dy)]
	for i, g := range dy {
		dx[i] = math.Float32frombits(math.Float32bits(g*l.scale) & mask[i])
	}
}
