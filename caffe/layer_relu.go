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
//
// In place in a net whose later layers do not write its blob (set by the
// net, keepSigns), on a blob larger than the core's cache holds on to
// (reluSignsMin), Forward also records which outputs are positive, a bit
// each (kernel.ReluSigns), and Backward reads those bits instead of the
// outputs (kernel.ReluGradSigns): the values Caffe's backward pass
// computes from the outputs, with a 32nd of the reading. (Values written
// into the blob by hand between the two passes are then not seen, as in
// the fused groups and the LRN layer's backward pass.)
type ReLU struct {
	neuron
	slope float32

	// keepSigns: the net found the ReLU in place and its blob kept until
	// the backward pass (Net.topKept). signs: the last Forward's signs,
	// for count values, while signsValid: a Backward uses them once; a
	// reshape or a fused group's pass that leaves this layer out
	// (forgetSigns) drops them.
	keepSigns  bool
	signs      []uint64
	count      int
	signsValid bool

	// The current call, for the workers.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
	x, y, dy, dx []float32
	useSigns     bool
}

var _ Layer = (*ReLU)(nil)

func newReLU(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	l := &ReLU{neuron: neuron{newLayerBase("ReLU", def, env)}, slope: def.GetReluParam().GetNegativeSlope()}
	l.fwdFn, l.bwdFn = l.forwardPart, l.backwardPart
	return l, nil
}

// reluSignsMin is the least number of values for which Forward records
// signs: a smaller blob is still in the core's cache when Backward reads
// it, faster than the bits cost to record (LeNet's 32,000 values).
const reluSignsMin = 1 << 16

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

// part returns part p's values [lo, hi) of n: with signs, whole words of
// them, so that no two parts write one word.
func (l *ReLU) part(p, n int) (lo, hi int) {
	_, parts := l.parts(n)
	if !l.useSigns {
		return span(p, parts, n)
	}
	lo, hi = span(p, parts, kernel.SignWords(n))
	return 64 * lo, min(n, 64*hi)
}

// Reshape gives the top the bottom's shape and drops recorded signs.
func (l *ReLU) Reshape(bottom, top []*Blob) error {
	l.forgetSigns()
	return l.neuron.Reshape(bottom, top)
}

// forgetSigns drops the signs of the last Forward: the blob's values are
// now written by other code (a fused group's pass) or reshaped. l may be
// nil.
func (l *ReLU) forgetSigns() {
	if l != nil {
		l.signsValid = false
	}
}

// Forward applies the rectifier.
func (l *ReLU) Forward(bottom, top []*Blob) error {
	l.x, l.y = bottom[0].DataSlice(), top[0].DataSlice()
	n := len(l.x)
	l.useSigns = l.keepSigns && bottom[0] == top[0] && n >= reluSignsMin
	if l.useSigns {
		if w := kernel.SignWords(n); cap(l.signs) < w {
			l.signs = make([]uint64, w)
		}
		l.signs = l.signs[:kernel.SignWords(n)]
	}
	workers, parts := l.parts(n)
	l.runner.run(workers, parts, l.fwdFn)
	l.signsValid, l.count = l.useSigns, n
	l.x, l.y, l.useSigns = nil, nil, false
	return nil
}

func (l *ReLU) forwardPart(_, p int) {
	lo, hi := l.part(p, len(l.x))
	if l.useSigns {
		kernel.ReluSigns(l.y[lo:hi], l.x[lo:hi], l.slope, l.signs[lo/64:])
		return
	}
	kernel.Relu(l.y[lo:hi], l.x[lo:hi], l.slope)
}

// Backward passes the gradient where the input was positive (scaled by
// negative_slope elsewhere). In place, the output's sign stands for the
// input's, as in Caffe: read from the signs Forward recorded where it
// did.
func (l *ReLU) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	l.x, l.dy, l.dx = bottom[0].DataSlice(), top[0].DiffSlice(), bottom[0].DiffSlice()
	n := len(l.x)
	l.useSigns = l.signsValid && l.count == n && bottom[0] == top[0]
	l.signsValid = false
	workers, parts := l.parts(n)
	l.runner.run(workers, parts, l.bwdFn)
	l.x, l.dy, l.dx, l.useSigns = nil, nil, nil, false
}

func (l *ReLU) backwardPart(_, p int) {
	lo, hi := l.part(p, len(l.x))
	if l.useSigns {
		kernel.ReluGradSigns(l.dx[lo:hi], l.dy[lo:hi], l.signs[lo/64:], l.slope)
		return
	}
	kernel.ReluGrad(l.dx[lo:hi], l.dy[lo:hi], l.x[lo:hi], l.slope)
}
