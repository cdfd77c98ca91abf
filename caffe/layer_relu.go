package caffe

import (
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "ReLU", Bottoms: Exactly(1), Tops: Exactly(1), New: newReLU, Shape: sameShapes})
}

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
