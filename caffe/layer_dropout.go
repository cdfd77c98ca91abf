package caffe

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Dropout", Bottoms: Exactly(1), Tops: Exactly(1), New: newDropout, Shape: sameShapes})
}

// Dropout zeroes each value with probability dropout_ratio in the TRAIN
// phase and scales the others by 1/(1 − dropout_ratio) (inverted
// dropout); in TEST it passes values through. It may run in place.
//
// The masks come from one random stream, a draw a value in order. With
// several threads a large blob is cut into parts that the threads share,
// each part drawing from the stream's state moved on past the values
// before it (pcgJump), so that the masks are those of one thread, bit
// for bit.
type Dropout struct {
	neuron
	ratio float32
	scale float32
	// keepBelow is the number of 24-bit draws that keep a value: a draw
	// u keeps it when u/2²⁴ < 1 − ratio, which is u < keepBelow.
	keepBelow uint64
	rng       rand.PCG // the stream (as ndarray.NewRNG seeds it)
	mask      []uint32 // all ones where the value is kept, else 0

	// The current call, for the workers: the values, the parts' streams.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
	x, y, dy, dx []float32
	streams      []rand.PCG
	state        [20]byte // the stream's state, read (PCG.AppendBinary)
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
	l.rng.Seed(ndarray.PCGSeeds(l.env.Seed ^ dropoutStream))
	l.fwdFn, l.bwdFn = l.forwardPart, l.backwardPart
	return l, nil
}

// dropoutMinPart is the least number of values worth a goroutine (a
// draw costs a few nanoseconds, a hand-off a few microseconds).
const dropoutMinPart = 1 << 14

// parts returns how many goroutines, and parts, share n values: one part
// each.
func (l *Dropout) parts(n int) int {
	return max(1, min(l.threads(), n/dropoutMinPart))
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
	l.x, l.y = x, y
	parts := l.parts(len(x))
	hi, lo := l.streamState()
	if cap(l.streams) < parts {
		l.streams = make([]rand.PCG, parts)
	}
	l.streams = l.streams[:parts]
	for p := range parts {
		a, _ := span(p, parts, len(x))
		l.streams[p].Seed(pcgJump(hi, lo, uint64(a)))
	}
	l.runner.run(parts, parts, l.fwdFn)
	l.rng.Seed(pcgJump(hi, lo, uint64(len(x))))
	l.x, l.y = nil, nil
	return nil
}

// forwardPart draws the masks of part p's values and applies them. A
// value is kept when the stream's next Float32 is below 1 − ratio, as
// Caffe's bernoulli draws; the comparison is made on the draw's 24 bits,
// and the value masked without a branch.
func (l *Dropout) forwardPart(_, p int) {
	a, b := span(p, len(l.streams), len(l.x))
	x, y, mask := l.x[a:b], l.y[a:b], l.mask[a:b]
	rng := l.streams[p] // a copy: the parts' states share cache lines
	for i, v := range x {
		u := rng.Uint64() >> 32 & (1<<24 - 1)
		m := uint32(int64(u-l.keepBelow) >> 63) // all ones if u < keepBelow
		mask[i] = m
		y[i] = math.Float32frombits(math.Float32bits(v*l.scale) & m)
	}
}

// streamState returns the stream's 128-bit state.
func (l *Dropout) streamState() (hi, lo uint64) {
	b, _ := l.rng.AppendBinary(l.state[:0]) // "pcg:", then hi and lo big-endian
	for i := range 8 {
		hi = hi<<8 | uint64(b[4+i])
		lo = lo<<8 | uint64(b[12+i])
	}
	return hi, lo
}

// pcgJump returns the state of math/rand/v2's PCG k steps after the
// state (hi, lo): its step is s ↦ m·s + c modulo 2¹²⁸, and k steps are
// s ↦ M·s + C, with M = m^k and C = c·(m^(k−1) + … + m + 1), which
// square-and-multiply builds from the steps of powers of two in
// O(log k) products.
func pcgJump(hi, lo, k uint64) (uint64, uint64) {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	mh, ml := uint64(0), uint64(1) // the jump so far: s ↦ M·s + C
	var ch, cl uint64
	sh, sl, th, tl := uint64(mulHi), uint64(mulLo), uint64(incHi), uint64(incLo) // the step of 2^j steps
	for ; k > 0; k >>= 1 {
		if k&1 != 0 {
			mh, ml = mul128(mh, ml, sh, sl)
			ch, cl = mul128(ch, cl, sh, sl)
			ch, cl = add128(ch, cl, th, tl)
		}
		// The step of twice as many: s ↦ S·(S·s + T) + T.
		ph, pl := add128(sh, sl, 0, 1)
		th, tl = mul128(th, tl, ph, pl)
		sh, sl = mul128(sh, sl, sh, sl)
	}
	hi, lo = mul128(mh, ml, hi, lo)
	return add128(hi, lo, ch, cl)
}

// mul128 returns a·b modulo 2¹²⁸.
func mul128(ah, al, bh, bl uint64) (uint64, uint64) {
	hi, lo := bits.Mul64(al, bl)
	return hi + ah*bl + al*bh, lo
}

// add128 returns a + b modulo 2¹²⁸.
func add128(ah, al, bh, bl uint64) (uint64, uint64) {
	lo, c := bits.Add64(al, bl, 0)
	hi, _ := bits.Add64(ah, bh, c)
	return hi, lo
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
	l.dy, l.dx = dy, dx
	parts := l.parts(len(dy))
	l.runner.run(parts, parts, l.bwdFn)
	l.dy, l.dx = nil, nil
}

// backwardPart applies the mask to part p's gradients.
func (l *Dropout) backwardPart(_, p int) {
	a, b := span(p, l.parts(len(l.dy)), len(l.dy))
	dy, dx, mask := l.dy[a:b], l.dx[a:b], l.mask[a:b]
	for i, g := range dy {
		dx[i] = math.Float32frombits(math.Float32bits(g*l.scale) & mask[i])
	}
}
