package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

func init() { registerComputed("Pooling", newPooling) }

// Pooling is Caffe's spatial pooling over a 4-D bottom [N, C, H, W]:
// MAX (the first maximal element of a window wins; an optional second top
// receives its index h·W + w) or AVE (the divisor counts the zero padding
// but not the area past it that rounding up adds). Output extents are
// ceil((in + 2·pad − kernel) / stride) + 1, or floor with round_mode FLOOR,
// less one when padding would make the last window start in the padding.
// global_pooling pools each whole plane.
type Pooling struct {
	layerBase
	method           caffepb.PoolingParameter_PoolMethod
	global           bool
	floor            bool
	kh, kw           int
	padH, padW       int
	strideH, strideW int

	num, channels, height, width int
	outH, outW                   int
	innerLo, innerHi             int     // output columns whose window is inside
	mask                         []int32 // MAX: the argmax of each output

	// The current call, for the workers: x and y are the bottom's and
	// top's values in Forward, their gradients in Backward.
	runner       parallelRunner
	fwdFn, bwdFn func(w int)
	x, y         []float32
}

var _ Layer = (*Pooling)(nil)

func newPooling(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetPoolingParam())
	l := &Pooling{
		layerBase: newLayerBase("Pooling", def, env),
		method:    p.GetPool(),
		global:    p.GetGlobalPooling(),
		floor:     p.GetRoundMode() == caffepb.PoolingParameter_FLOOR,
	}
	l.fwdFn, l.bwdFn = l.forwardWorker, l.backwardWorker
	switch l.method {
	case caffepb.PoolingParameter_MAX, caffepb.PoolingParameter_AVE:
	case caffepb.PoolingParameter_STOCHASTIC:
		return nil, fmt.Errorf("STOCHASTIC pooling is not supported (Caffe runs it on GPUs only); use MAX or AVE")
	default:
		return nil, fmt.Errorf("unknown pooling method %v; known: MAX, AVE", l.method)
	}
	hasKernel := p.KernelSize != nil
	hasKernelHW := p.KernelH != nil || p.KernelW != nil
	if l.global {
		if hasKernel || hasKernelHW {
			return nil, fmt.Errorf("with global_pooling: true the kernel size cannot be given")
		}
	} else {
		if hasKernel && hasKernelHW {
			return nil, fmt.Errorf("give kernel_size or kernel_h and kernel_w, not both")
		}
		if !hasKernel && (p.KernelH == nil || p.KernelW == nil) {
			return nil, fmt.Errorf("kernel_size, or both kernel_h and kernel_w, are required")
		}
		if hasKernel {
			l.kh, l.kw = int(p.GetKernelSize()), int(p.GetKernelSize())
		} else {
			l.kh, l.kw = int(p.GetKernelH()), int(p.GetKernelW())
		}
		if l.kh <= 0 || l.kw <= 0 {
			return nil, fmt.Errorf("kernel %d×%d: filter dimensions must be greater than zero", l.kh, l.kw)
		}
	}
	if p.PadH != nil || p.PadW != nil {
		if p.Pad != nil || p.PadH == nil || p.PadW == nil {
			return nil, fmt.Errorf("give pad, or both pad_h and pad_w")
		}
		l.padH, l.padW = int(p.GetPadH()), int(p.GetPadW())
	} else {
		l.padH, l.padW = int(p.GetPad()), int(p.GetPad())
	}
	if p.StrideH != nil || p.StrideW != nil {
		if p.Stride != nil || p.StrideH == nil || p.StrideW == nil {
			return nil, fmt.Errorf("give stride, or both stride_h and stride_w")
		}
		l.strideH, l.strideW = int(p.GetStrideH()), int(p.GetStrideW())
	} else {
		l.strideH, l.strideW = int(p.GetStride()), int(p.GetStride())
	}
	if l.strideH <= 0 || l.strideW <= 0 {
		return nil, fmt.Errorf("stride %d×%d must be greater than zero", l.strideH, l.strideW)
	}
	if l.global && (l.padH != 0 || l.padW != 0 || l.strideH != 1 || l.strideW != 1) {
		return nil, fmt.Errorf("with global_pooling: true only pad = 0 and stride = 1 are allowed")
	}
	if !l.global && (l.padH >= l.kh || l.padW >= l.kw) {
		return nil, fmt.Errorf("pad %d×%d must be smaller than the kernel %d×%d", l.padH, l.padW, l.kh, l.kw)
	}
	return l, nil
}

// Setup checks the blobs and shapes the tops.
func (l *Pooling) Setup(bottom, top []*Blob) error {
	maxTop := 1
	if l.method == caffepb.PoolingParameter_MAX {
		maxTop = 2
	}
	if err := l.checkBlobs(bottom, top, 1, 1, 1, maxTop); err != nil {
		return err
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// poolOut is the pooled extent along one axis.
func (l *Pooling) poolOut(in, k, pad, stride int) int {
	f := float64(in+2*pad-k) / float64(stride)
	var out int
	if l.floor {
		out = int(math.Floor(f)) + 1
	} else {
		out = int(math.Ceil(f)) + 1
	}
	if pad > 0 && (out-1)*stride >= in+pad {
		out--
	}
	return out
}

// Reshape computes the pooled shape.
func (l *Pooling) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if b.NumAxes() != 4 {
		return l.errorf("input of shape %v: want 4 axes (num, channels, height, width)", b.shape)
	}
	l.num, l.channels, l.height, l.width = b.Dim(0), b.Dim(1), b.Dim(2), b.Dim(3)
	if l.global {
		l.kh, l.kw = l.height, l.width
	}
	l.outH = l.poolOut(l.height, l.kh, l.padH, l.strideH)
	l.outW = l.poolOut(l.width, l.kw, l.padW, l.strideW)
	if l.outH <= 0 || l.outW <= 0 {
		return l.errorf("input %d×%d is smaller than the kernel %d×%d with padding %d×%d",
			l.height, l.width, l.kh, l.kw, l.padH, l.padW)
	}
	for _, t := range top {
		t.Reshape(l.num, l.channels, l.outH, l.outW)
	}
	// Output columns whose window lies inside the plane.
	l.innerLo = min(l.outW, (l.padW+l.strideW-1)/l.strideW)
	l.innerHi = l.innerLo
	for l.innerHi < l.outW && l.innerHi*l.strideW-l.padW+l.kw <= l.width {
		l.innerHi++
	}
	if l.method == caffepb.PoolingParameter_MAX {
		n := l.num * l.channels * l.outH * l.outW
		if cap(l.mask) < n {
			l.mask = make([]int32, n)
		}
		l.mask = l.mask[:n]
	}
	return nil
}

// Forward pools every plane; with several threads the planes are shared
// out among them.
func (l *Pooling) Forward(bottom, top []*Blob) error {
	l.x, l.y = bottom[0].DataSlice(), top[0].DataSlice()
	l.runner.run(l.workers(), l.fwdFn)
	if l.method == caffepb.PoolingParameter_MAX && len(top) > 1 {
		m := top[1].DataSlice()
		for i, v := range l.mask {
			m[i] = float32(v)
		}
	}
	l.x, l.y = nil, nil
	return nil
}

// workers returns how many goroutines share the planes: one per thread,
// but none for less than poolMinWork input values each.
func (l *Pooling) workers() int {
	return max(1, min(l.threads(), l.num*l.channels*l.height*l.width/poolMinWork))
}

// poolMinWork is the least number of input values worth a goroutine.
const poolMinWork = 1 << 15

// planes returns the range of planes worker w of n handles.
func (l *Pooling) planes(w, n int) (lo, hi int) {
	p := l.num * l.channels
	return w * p / n, (w + 1) * p / n
}

func (l *Pooling) forwardWorker(w int) {
	x, y := l.x, l.y
	hw, phw := l.height*l.width, l.outH*l.outW
	lo, hi := l.planes(w, l.workers())
	for pl := lo; pl < hi; pl++ {
		if l.method == caffepb.PoolingParameter_MAX {
			l.maxPlane(x[pl*hw:(pl+1)*hw], y[pl*phw:(pl+1)*phw], l.mask[pl*phw:(pl+1)*phw])
		} else {
			l.avePlane(x[pl*hw:(pl+1)*hw], y[pl*phw:(pl+1)*phw])
		}
	}
}

// maxPlane max-pools one H×W plane into the pooled plane y, recording the
// index of each maximum. Windows that lie inside the plane take a fast
// path (unrolled for 2×2 and 3×3); the others are clipped.
func (l *Pooling) maxPlane(x, y []float32, mask []int32) {
	w := l.width
	for ph := range l.outH {
		hs := ph*l.strideH - l.padH
		he := min(hs+l.kh, l.height)
		hs = max(hs, 0)
		yr, mr := y[ph*l.outW:(ph+1)*l.outW], mask[ph*l.outW:(ph+1)*l.outW]
		lo, hi := 0, 0 // output columns whose window is inside the plane
		if he-hs == l.kh {
			lo, hi = l.innerLo, l.innerHi
		}
		for pw := range lo {
			yr[pw], mr[pw] = l.maxWindow(x, hs, he, pw)
		}
		switch {
		case lo >= hi:
		case l.kh == 2 && l.kw == 2:
			r0, r1 := x[hs*w:(hs+1)*w], x[(hs+1)*w:(hs+2)*w]
			for pw := lo; pw < hi; pw++ {
				c := pw*l.strideW - l.padW
				a, b := r0[c:c+2:c+2], r1[c:c+2:c+2]
				best, idx := a[0], hs*w+c
				best, idx = maxStep(best, idx, a[1], hs*w+c+1)
				best, idx = maxStep(best, idx, b[0], (hs+1)*w+c)
				best, idx = maxStep(best, idx, b[1], (hs+1)*w+c+1)
				yr[pw], mr[pw] = best, int32(idx)
			}
		case l.kh == 3 && l.kw == 3:
			r0, r1, r2 := x[hs*w:(hs+1)*w], x[(hs+1)*w:(hs+2)*w], x[(hs+2)*w:(hs+3)*w]
			for pw := lo; pw < hi; pw++ {
				c := pw*l.strideW - l.padW
				a, b, d := r0[c:c+3:c+3], r1[c:c+3:c+3], r2[c:c+3:c+3]
				best, idx := a[0], hs*w+c
				best, idx = maxStep(best, idx, a[1], hs*w+c+1)
				best, idx = maxStep(best, idx, a[2], hs*w+c+2)
				best, idx = maxStep(best, idx, b[0], (hs+1)*w+c)
				best, idx = maxStep(best, idx, b[1], (hs+1)*w+c+1)
				best, idx = maxStep(best, idx, b[2], (hs+1)*w+c+2)
				best, idx = maxStep(best, idx, d[0], (hs+2)*w+c)
				best, idx = maxStep(best, idx, d[1], (hs+2)*w+c+1)
				best, idx = maxStep(best, idx, d[2], (hs+2)*w+c+2)
				yr[pw], mr[pw] = best, int32(idx)
			}
		default:
			for pw := lo; pw < hi; pw++ {
				yr[pw], mr[pw] = l.maxWindow(x, hs, he, pw)
			}
		}
		for pw := max(lo, hi); pw < l.outW; pw++ {
			yr[pw], mr[pw] = l.maxWindow(x, hs, he, pw)
		}
	}
}

// maxStep folds value v at index i into a running maximum; a strictly
// greater value moves the index, so the first maximum keeps it. It
// compiles to conditional moves: the comparisons of pooling windows are
// unpredictable, and branches on them cost more than the work.
func maxStep(best float32, idx int, v float32, i int) (float32, int) {
	if v > best {
		idx = i
	}
	return max(best, v), idx
}

// maxWindow returns the maximum of the window of output column pw over
// rows [hs, he), clipped to the plane, and its index: the first maximal
// element in row-major order, as Caffe (−FLT_MAX and −1 for an empty
// window).
func (l *Pooling) maxWindow(x []float32, hs, he, pw int) (float32, int32) {
	w := l.width
	ws := pw*l.strideW - l.padW
	we := min(ws+l.kw, w)
	ws = max(ws, 0)
	best, idx := float32(-math.MaxFloat32), -1
	for h := hs; h < he; h++ {
		row := x[h*w : h*w+we]
		for c := ws; c < we; c++ {
			if v := row[c]; v > best {
				best, idx = v, h*w+c
			}
		}
	}
	return best, int32(idx)
}

// avePlane average-pools one plane.
func (l *Pooling) avePlane(x, y []float32) {
	w := l.width
	i := 0
	for ph := range l.outH {
		hs := ph*l.strideH - l.padH
		he := min(hs+l.kh, l.height+l.padH)
		for pw := range l.outW {
			ws := pw*l.strideW - l.padW
			we := min(ws+l.kw, w+l.padW)
			size := float32((he - hs) * (we - ws))
			h0, h1 := max(hs, 0), min(he, l.height)
			w0, w1 := max(ws, 0), min(we, w)
			var sum float32
			for h := h0; h < h1; h++ {
				for _, v := range x[h*w+w0 : h*w+w1] {
					sum += v
				}
			}
			y[i] = sum / size
			i++
		}
	}
}

// Backward routes each output gradient to the window's maximum (MAX) or
// spreads it evenly over the window (AVE).
func (l *Pooling) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	l.y, l.x = top[0].DiffSlice(), bottom[0].DiffSlice()
	l.runner.run(l.workers(), l.bwdFn)
	l.x, l.y = nil, nil
}

func (l *Pooling) backwardWorker(w int) {
	dy, dx := l.y, l.x
	hw, phw := l.height*l.width, l.outH*l.outW
	lo, hi := l.planes(w, l.workers())
	clear(dx[lo*hw : hi*hw])
	if l.method == caffepb.PoolingParameter_MAX {
		for pl := lo; pl < hi; pl++ {
			d := dx[pl*hw : (pl+1)*hw]
			for i, m := range l.mask[pl*phw : (pl+1)*phw] {
				if m >= 0 {
					d[m] += dy[pl*phw+i]
				}
			}
		}
		return
	}
	width := l.width
	for pl := lo; pl < hi; pl++ {
		d := dx[pl*hw : (pl+1)*hw]
		g := dy[pl*phw : (pl+1)*phw]
		i := 0
		for ph := range l.outH {
			hs := ph*l.strideH - l.padH
			he := min(hs+l.kh, l.height+l.padH)
			for pw := range l.outW {
				ws := pw*l.strideW - l.padW
				we := min(ws+l.kw, width+l.padW)
				v := g[i] / float32((he-hs)*(we-ws))
				i++
				h0, h1 := max(hs, 0), min(he, l.height)
				w0, w1 := max(ws, 0), min(we, width)
				for h := h0; h < h1; h++ {
					row := d[h*width+w0 : h*width+w1]
					for c := range row {
						row[c] += v
					}
				}
			}
		}
	}
}
