package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// More element-wise layers of Caffe: ELU, Exp, Log, Clip, Swish,
// Threshold and the learned PReLU, with Caffe's formulas and defaults.

func init() {
	registerComputed("ELU", newELU)
	registerComputed("Exp", newExp)
	registerComputed("Log", newLog)
	registerComputed("Clip", newClip)
	registerComputed("Swish", newSwish)
	registerComputed("Threshold", newThreshold)
	registerComputed("PReLU", newPReLU)
}

// neuronNotInPlace is a neuron whose gradient needs its input.
type neuronNotInPlace struct{ neuron }

// Setup also rejects in-place use.
func (l *neuronNotInPlace) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top, 1, 1, 1, 1); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// ELU is x for x > 0 and alpha·(e^x − 1) otherwise (elu_param.alpha,
// default 1). It may run in place.
type ELU struct {
	neuron
	alpha float32
}

func newELU(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &ELU{neuron: neuron{newLayerBase("ELU", def, env)}, alpha: def.GetEluParam().GetAlpha()}, nil
}

// Forward applies the exponential linear unit.
func (l *ELU) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		if v <= 0 {
			v = l.alpha * float32(math.Expm1(float64(v)))
		}
		y[i] = v
	}
	return nil
}

// Backward passes dy where the output is positive, and dy·(y + alpha)
// elsewhere (Caffe's form, which holds in place too).
func (l *ELU) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	x := bottom[0].DataSlice()
	dy, dx, x = dy[:len(y)], dx[:len(y)], x[:len(y)]
	for i, v := range x {
		if v > 0 {
			dx[i] = dy[i]
		} else {
			dx[i] = dy[i] * (y[i] + l.alpha)
		}
	}
}

// Exp is base^(shift + scale·x) (exp_param: base −1 meaning e, scale 1,
// shift 0). It may run in place.
type Exp struct {
	neuron
	inner, outer float32 // y = outer·e^(inner·x)
}

func newExp(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetExpParam()
	logBase, err := logOfBase("exp_param", p.GetBase())
	if err != nil {
		return nil, err
	}
	return &Exp{neuron: neuron{newLayerBase("Exp", def, env)},
		inner: float32(logBase * float64(p.GetScale())),
		outer: float32(math.Exp(logBase * float64(p.GetShift())))}, nil
}

// logOfBase returns ln(base), with −1 standing for e; other bases must be
// positive.
func logOfBase(param string, base float32) (float64, error) {
	if base == -1 {
		return 1, nil
	}
	if !(base > 0) {
		return 0, fmt.Errorf("%s.base = %g: want a positive base, or -1 for e", param, base)
	}
	return math.Log(float64(base)), nil
}

// Forward exponentiates.
func (l *Exp) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = l.outer * float32(math.Exp(float64(l.inner*v)))
	}
	return nil
}

// Backward multiplies by inner·y.
func (l *Exp) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	y, dy, dx := top[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		dx[i] = dy[i] * v * l.inner
	}
}

// Log is log_base(shift + scale·x) (log_param: base −1 meaning e, scale
// 1, shift 0). It cannot run in place.
type Log struct {
	neuronNotInPlace
	scale, shift, invLogBase float32
}

func newLog(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetLogParam()
	logBase, err := logOfBase("log_param", p.GetBase())
	if err != nil {
		return nil, err
	}
	return &Log{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("Log", def, env)}},
		scale: p.GetScale(), shift: p.GetShift(), invLogBase: float32(1 / logBase)}, nil
}

// Forward takes the logarithm.
func (l *Log) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = float32(math.Log(float64(l.shift+l.scale*v))) * l.invLogBase
	}
	return nil
}

// Backward multiplies by scale / ((shift + scale·x)·ln(base)).
func (l *Log) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		dx[i] = dy[i] * l.scale * l.invLogBase / (l.shift + l.scale*v)
	}
}

// Clip limits x to [min, max] (clip_param, both required). It cannot run
// in place.
type Clip struct {
	neuronNotInPlace
	min, max float32
}

func newClip(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetClipParam()
	if p == nil || p.Min == nil || p.Max == nil {
		return nil, fmt.Errorf("clip_param needs min and max")
	}
	if !(p.GetMin() <= p.GetMax()) {
		return nil, fmt.Errorf("clip_param: min %g > max %g", p.GetMin(), p.GetMax())
	}
	return &Clip{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("Clip", def, env)}}, min: p.GetMin(), max: p.GetMax()}, nil
}

// Forward clips.
func (l *Clip) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = max(l.min, min(l.max, v))
	}
	return nil
}

// Backward passes the gradient where min <= x <= max.
func (l *Clip) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, dy, dx := bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		if v >= l.min && v <= l.max {
			dx[i] = dy[i]
		} else {
			dx[i] = 0
		}
	}
}

// Swish is x·sigmoid(beta·x) (swish_param.beta, default 1). It cannot run
// in place.
type Swish struct {
	neuronNotInPlace
	beta float32
}

func newSwish(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Swish{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("Swish", def, env)}}, beta: def.GetSwishParam().GetBeta()}, nil
}

// Forward applies swish.
func (l *Swish) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		y[i] = v * sigmoid(l.beta*v)
	}
	return nil
}

// Backward multiplies by beta·y + sigmoid(beta·x)·(1 − beta·y).
func (l *Swish) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	dy, dx := top[0].DiffSlice(), bottom[0].DiffSlice()
	y, dy, dx = y[:len(x)], dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		s := sigmoid(l.beta * v)
		by := l.beta * y[i]
		dx[i] = dy[i] * (by + s*(1-by))
	}
}

// Threshold is 1 where x > threshold and 0 elsewhere
// (threshold_param.threshold, default 0). Its gradient is zero wherever
// it exists; Caffe does not implement one, and neither is one passed
// here: Backward leaves zeros. It may run in place.
type Threshold struct {
	neuron
	threshold float32
}

func newThreshold(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	return &Threshold{neuron: neuron{newLayerBase("Threshold", def, env)}, threshold: def.GetThresholdParam().GetThreshold()}, nil
}

// Forward thresholds.
func (l *Threshold) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	y = y[:len(x)]
	for i, v := range x {
		if v > l.threshold {
			y[i] = 1
		} else {
			y[i] = 0
		}
	}
	return nil
}

// Backward writes zeros.
func (l *Threshold) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if wantDown(propagateDown) {
		clear(bottom[0].DiffSlice())
	}
}

// PReLU is max(0, x) + a·min(0, x) with a learned slope a per channel
// (axis 1), or one shared by all channels (prelu_param.channel_shared;
// filler default constant 0.25). It cannot run in place.
type PReLU struct {
	neuronNotInPlace
	shared bool
	dim    int // values per channel of one sample
}

func newPReLU(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := def.GetPreluParam()
	if err := CheckFiller(p.GetFiller()); err != nil {
		return nil, fmt.Errorf("prelu_param.filler: %w", err)
	}
	return &PReLU{neuronNotInPlace: neuronNotInPlace{neuron{newLayerBase("PReLU", def, env)}}, shared: p.GetChannelShared()}, nil
}

// Setup creates the slopes.
func (l *PReLU) Setup(bottom, top []*Blob) error {
	if err := l.neuronNotInPlace.Setup(bottom, top); err != nil {
		return err
	}
	if bottom[0].NumAxes() < 2 {
		return l.errorf("needs a bottom of at least 2 axes, got %v", bottom[0].Shape())
	}
	shape := []int{bottom[0].Dim(1)}
	if l.shared {
		shape = []int{1}
	}
	filler := defaultFiller(l.def.GetPreluParam().GetFiller(), 0.25)
	rng := l.fillRNG()
	if err := l.initParams([][]int{shape}, func(_ int, b *Blob) error { return FillBlob(b, filler, rng) }); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape checks the channel count against the slopes.
func (l *PReLU) Reshape(bottom, top []*Blob) error {
	if bottom[0].NumAxes() < 2 {
		return l.errorf("needs a bottom of at least 2 axes, got %v", bottom[0].Shape())
	}
	if c := bottom[0].Dim(1); !l.shared && len(l.blobs) == 1 && l.blobs[0].Count() != c {
		return l.errorf("bottom has %d channels, the layer %d slopes", c, l.blobs[0].Count())
	}
	l.dim = bottom[0].Count() / max(1, bottom[0].Dim(0)*bottom[0].Dim(1))
	return l.neuron.Reshape(bottom, top)
}

// planes calls fn for every run of values that share one slope: each
// channel plane of each sample, with the index of its slope.
func (l *PReLU) planes(n int, channels int, fn func(lo, hi, slope int)) {
	for i, p := 0, 0; i < n; i, p = i+l.dim, p+1 {
		s := 0
		if !l.shared {
			s = p % channels
		}
		fn(i, i+l.dim, s)
	}
}

// Forward applies the leaky rectifier with the learned slopes.
func (l *PReLU) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	a := l.blobs[0].DataSlice()
	y = y[:len(x)]
	l.planes(len(x), bottom[0].Dim(1), func(lo, hi, s int) {
		slope := a[s]
		for i, v := range x[lo:hi] {
			if v <= 0 {
				v *= slope
			}
			y[lo+i] = v
		}
	})
	return nil
}

// Backward accumulates the slopes' gradient (sum of dy·x where x <= 0)
// and passes dy, scaled by the slope where x <= 0, to the bottom.
func (l *PReLU) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	x, dy := bottom[0].DataSlice(), top[0].DiffSlice()
	dy = dy[:len(x)]
	c := bottom[0].Dim(1)
	if l.paramGrad(0) {
		da := l.blobs[0].DiffSlice()
		l.planes(len(x), c, func(lo, hi, s int) {
			var sum float32
			for i, v := range x[lo:hi] {
				if v <= 0 {
					sum += dy[lo+i] * v
				}
			}
			da[s] += sum
		})
	}
	if !wantDown(propagateDown) {
		return
	}
	a, dx := l.blobs[0].DataSlice(), bottom[0].DiffSlice()
	dx = dx[:len(x)]
	l.planes(len(x), c, func(lo, hi, s int) {
		slope := a[s]
		for i, v := range x[lo:hi] {
			if v > 0 {
				dx[lo+i] = dy[lo+i]
			} else {
				dx[lo+i] = dy[lo+i] * slope
			}
		}
	})
}
