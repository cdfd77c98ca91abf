package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	registerComputed("ReLU", newReLU)
	registerComputed("Sigmoid", newSigmoid)
	registerComputed("TanH", newTanH)
	registerComputed("AbsVal", newAbsVal)
	registerComputed("Power", newPower)
	registerComputed("BNLL", newBNLL)
	registerComputed("Dropout", newDropout)
}

// neuron is the base of element-wise layers: one bottom, one top of the
// same shape, which may be the bottom itself (in place).
type neuron struct{ layerBase }

// Setup checks the blobs and shapes the top.
func (l *neuron) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape gives the top the bottom's shape.
func (l *neuron) Reshape(bottom, top []*Blob) error {
	if top[0] != bottom[0] {
		top[0].ReshapeLike(bottom[0])
	}
	return nil
}

// wantDown reports whether bottom 0's gradient is wanted.
func wantDown(propagateDown []bool) bool { return len(propagateDown) > 0 && propagateDown[0] }

// ReLU is max(x, 0) + negative_slope·min(x, 0). It may run in place.
// With several threads, a large blob is cut into parts that the threads
// share.
type ReLU struct {
	neuron
	slope float32

	// The current call, for the workers.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
	x, y, dy, dx []float32
}

var _ Layer = (*ReLU)(nil)

func newReLU(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	l := &ReLU{neuron: neuron{newLayerBase("ReLU", def, env)}, slope: def.GetReluParam().GetNegativeSlope()}
	l.fwdFn, l.bwdFn = l.forwardPart, l.backwardPart
	return l, nil
}

// reluMinPart is the least number of values worth a goroutine: ReLU is
// bound by memory, and a hand-off costs about as much as this many.
const reluMinPart = 1 << 16

// parts returns how many goroutines, and parts, share n values.
func (l *ReLU) parts(n int) (workers, parts int) {
	workers = max(1, min(l.threads(), n/reluMinPart))
	if workers == 1 {
		return 1, 1
	}
	return workers, min(4*workers, n/(reluMinPart/4))
}

// Forward applies the rectifier.
func (l *ReLU) Forward(bottom, top []*Blob) error {
	l.x, l.y = bottom[0].DataSlice(), top[0].DataSlice()
	workers, parts := l.parts(len(l.x))
	l.runner.run(workers, parts, l.fwdFn)
	l.x, l.y = nil, nil
	return nil
}

func (l *ReLU) forwardPart(_, p int) {
	_, parts := l.parts(len(l.x))
	lo, hi := span(p, parts, len(l.x))
	kernel.Relu(l.y[lo:hi], l.x[lo:hi], l.slope)
}

// Backward passes the gradient where the input was positive (scaled by
// negative_slope elsewhere). In place, the output's sign stands for the
// input's, as in Caffe.
func (l *ReLU) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	l.x, l.dy, l.dx = bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	workers, parts := l.parts(len(l.x))
	l.runner.run(workers, parts, l.bwdFn)
	l.x, l.dy, l.dx = nil, nil, nil
}

func (l *ReLU) backwardPart(_, p int) {
	_, parts := l.parts(len(l.x))
	lo, hi := span(p, parts, len(l.x))
	kernel.ReluGrad(l.dx[lo:hi], l.dy[lo:hi], l.x[lo:hi], l.slope)
}

// Sigmoid is 1/(1+e^−x), computed as 0.5·tanh(0.5x) + 0.5 as Caffe does.
// It may run in place.
type Sigmoid struct{ neuron }

var _ Layer = (*Sigmoid)(nil)

func newSigmoid(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Sigmoid{neuron{newLayerBase("Sigmoid", def, env)}}, nil
}

func sigmoid(x float32) float32 { return float32(0.5*math.Tanh(0.5*float64(x)) + 0.5) }

// Forward applies the logistic function.
func (l *Sigmoid) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = sigmoid(v)
	}
	return nil
}

// Backward uses y(1−y) from the output.
func (l *Sigmoid) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		dx[i] = dy[i] * v * (1 - v)
	}
}

// TanH is the hyperbolic tangent. It may run in place.
type TanH struct{ neuron }

var _ Layer = (*TanH)(nil)

func newTanH(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &TanH{neuron{newLayerBase("TanH", def, env)}}, nil
}

// Forward applies tanh.
func (l *TanH) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float32(math.Tanh(float64(v)))
	}
	return nil
}

// Backward uses 1 − y² from the output.
func (l *TanH) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		dx[i] = dy[i] * (1 - v*v)
	}
}

// AbsVal is |x|. It cannot run in place (its gradient needs the input's
// sign).
type AbsVal struct{ neuron }

var _ Layer = (*AbsVal)(nil)

func newAbsVal(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &AbsVal{neuron{newLayerBase("AbsVal", def, env)}}, nil
}

// Setup also rejects in-place use.
func (l *AbsVal) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Forward takes absolute values.
func (l *AbsVal) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float32(math.Abs(float64(v)))
	}
	return nil
}

// Backward multiplies by sign(x) (0 at 0).
func (l *AbsVal) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		switch {
		case v > 0:
			dx[i] = dy[i]
		case v < 0:
			dx[i] = -dy[i]
		default:
			dx[i] = 0
		}
	}
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
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
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

// BNLL is the binomial normal log likelihood, log(1 + e^x), computed
// stably. It cannot run in place.
type BNLL struct{ neuron }

var _ Layer = (*BNLL)(nil)

func newBNLL(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &BNLL{neuron{newLayerBase("BNLL", def, env)}}, nil
}

// Setup also rejects in-place use.
func (l *BNLL) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Forward computes log(1 + e^x).
func (l *BNLL) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		f := float64(v)
		if f > 0 {
			y[i] = float32(f + math.Log(1+math.Exp(-f)))
		} else {
			y[i] = float32(math.Log(1 + math.Exp(f)))
		}
	}
	return nil
}

// bnllThreshold caps the exponent in BNLL's gradient, as Caffe's
// kBNLL_THRESHOLD.
const bnllThreshold = 50

// Backward multiplies by the logistic function of x.
func (l *BNLL) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		e := math.Exp(math.Min(float64(v), bnllThreshold))
		dx[i] = dy[i] * float32(e/(e+1))
	}
}

// Dropout zeroes each value with probability dropout_ratio in the TRAIN
// phase and scales the others by 1/(1 − dropout_ratio) (inverted
// dropout); in TEST it passes values through. It may run in place.
type Dropout struct {
	neuron
	ratio float32
	scale float32
	rng   *ndarray.RNG
	mask  []bool
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
	l.rng = ndarray.NewRNG(l.env.Seed ^ dropoutStream)
	return l, nil
}

// Setup checks the blobs and shapes the top and the mask.
func (l *Dropout) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
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
		l.mask = make([]bool, n)
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
	keep := 1 - l.ratio
	mask := l.mask[:len(x)]
	for i, v := range x {
		m := l.rng.Float32() < keep
		mask[i] = m
		if m {
			y[i] = v * l.scale
		} else {
			y[i] = 0
		}
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
		if mask[i] {
			dx[i] = g * l.scale
		} else {
			dx[i] = 0
		}
	}
}
