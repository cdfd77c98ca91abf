package caffe

import (
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Pooling", Bottoms: Exactly(1), Tops: Between(1, 2), New: newPooling, Shape: ruleOf((*Pooling).inferShapes)})
}

// Pooling is Caffe's spatial pooling over a 4-D bottom [N, C, H, W]:
// MAX (the first maximal element of a window wins; an optional second top
// receives its index h·W + w) or AVE (the divisor counts the zero padding
// but not the area past it that rounding up adds). Output extents are
// ceil((in + 2·pad − kernel) / stride) + 1, or floor with round_mode FLOOR,
// less one when padding would make the last window start in the padding.
// global_pooling pools each whole plane.
//
// Unpadded 3×3 windows of stride 2 (CIFAR-10 quick's and AlexNet's
// poolings) and unpadded 2×2 MAX windows of stride 2 (LeNet's) are
// pooled, and their gradients computed, by one kernel call per run of
// planes (kernel.MaxPoolPlanes, kernel.AvePoolPlanes and their
// gradients); a MAX layer whose bottom is larger than the caches
// (poolStreamBytes) writes the bottom's gradient by non-temporal stores
// where the kernels can (kernel.MaxPoolBackwardPlanesStream), which a
// fused group's pooling, on blocks in the cache, does not. Otherwise the
// outputs whose windows lie inside the plane are computed by one vector
// kernel call per plane (kernel.MaxPoolRows, kernel.AvePoolRows), those
// at the edges by row kernels; with several threads the planes are
// shared out in parts.
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
	rowLo, rowHi                 int     // output rows whose window is inside
	mask                         []int32 // MAX: the argmax of each output
	// The fused group (net_fuse.go) whose direct convolution pooled the
	// last forward pass on its interleaved blocks (MAX: holding the mask
	// there), or nil.
	pending *convFusion
	// AVE: for each output column, its window's columns [colLo, colHi)
	// clipped to the plane and its width with the padding (colSize).
	colLo, colHi, colSize []int
	spread                []float32 // AVE backward: outH rows of W per worker

	// The current call, for the workers: x and y are the bottom's and
	// top's values in Forward, their gradients in Backward.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
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
	case caffepb.PoolingParameter_MAX, caffepb.PoolingParameter_AVE, caffepb.PoolingParameter_STOCHASTIC:
	default:
		return nil, fmt.Errorf("unknown pooling method %v; known: MAX, AVE, STOCHASTIC", l.method)
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
	if (l.padH != 0 || l.padW != 0) && l.method == caffepb.PoolingParameter_STOCHASTIC {
		return nil, fmt.Errorf("padding works with MAX and AVE pooling only")
	}
	return l, nil
}

// Setup checks the blobs and shapes the tops.
func (l *Pooling) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if l.method == caffepb.PoolingParameter_STOCHASTIC {
		return l.errorf("STOCHASTIC pooling is not supported (Caffe runs it on GPUs only); use MAX or AVE")
	}
	if err := l.checkTops(len(top)); err != nil {
		return l.errorf("%w", err)
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// checkTops checks that only MAX pooling has the second top (the mask).
func (l *Pooling) checkTops(n int) error {
	if n > 1 && l.method != caffepb.PoolingParameter_MAX {
		return fmt.Errorf("a second top (the argmax mask) needs pool: MAX")
	}
	return nil
}

// poolOut is the pooled extent along one axis. As in Caffe, when the
// layer pads at all, the last window must start inside the input or its
// padding.
func (l *Pooling) poolOut(in, k, pad, stride int) int {
	f := float64(in+2*pad-k) / float64(stride)
	var out int
	if l.floor {
		out = int(math.Floor(f)) + 1
	} else {
		out = int(math.Ceil(f)) + 1
	}
	if (l.padH != 0 || l.padW != 0) && (out-1)*stride >= in+pad {
		out--
	}
	return out
}

// pooledSize returns the pooled height and width of an input of shape b
// and the kernel's size (the whole plane with global_pooling).
func (l *Pooling) pooledSize(b Shape) (oh, ow, kh, kw int, err error) {
	if len(b) != 4 {
		return 0, 0, 0, 0, fmt.Errorf("input of shape %v: want 4 axes (num, channels, height, width)", []int(b))
	}
	kh, kw = l.kh, l.kw
	if l.global {
		kh, kw = b[2], b[3]
	}
	oh, ow = l.poolOut(b[2], kh, l.padH, l.strideH), l.poolOut(b[3], kw, l.padW, l.strideW)
	if oh <= 0 || ow <= 0 {
		return 0, 0, 0, 0, fmt.Errorf("input of shape %v with kernel %d×%d, stride %d×%d and padding %d×%d gives output size %d×%d",
			[]int(b), kh, kw, l.strideH, l.strideW, l.padH, l.padW, oh, ow)
	}
	return oh, ow, kh, kw, nil
}

// inferShapes is Pooling's shape rule: every top has the pooled shape.
func (l *Pooling) inferShapes(c *ShapeContext) error {
	if err := l.checkTops(len(c.Tops)); err != nil {
		return c.Errorf("%w", err)
	}
	if !c.Known() {
		return nil
	}
	b := c.Bottoms[0]
	oh, ow, _, _, err := l.pooledSize(b)
	if err != nil {
		return c.Errorf("%w", err)
	}
	for j := range c.Tops {
		c.Tops[j] = Shape{b[0], b[1], oh, ow}
	}
	return nil
}

// Reshape computes the pooled shape.
func (l *Pooling) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	oh, ow, kh, kw, err := l.pooledSize(b.shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.num, l.channels, l.height, l.width = b.Dim(0), b.Dim(1), b.Dim(2), b.Dim(3)
	l.pending = nil
	l.kh, l.kw = kh, kw
	l.outH, l.outW = oh, ow
	for _, t := range top {
		t.Reshape(l.num, l.channels, l.outH, l.outW)
	}
	// Output columns whose window lies inside the plane.
	l.innerLo = min(l.outW, (l.padW+l.strideW-1)/l.strideW)
	l.innerHi = l.innerLo
	for l.innerHi < l.outW && l.innerHi*l.strideW-l.padW+l.kw <= l.width {
		l.innerHi++
	}
	// Output rows whose window lies inside the plane.
	l.rowLo = min(l.outH, (l.padH+l.strideH-1)/l.strideH)
	l.rowHi = l.rowLo
	for l.rowHi < l.outH && l.rowHi*l.strideH-l.padH+l.kh <= l.height {
		l.rowHi++
	}
	if l.method == caffepb.PoolingParameter_MAX {
		n := l.num * l.channels * l.outH * l.outW
		if cap(l.mask) < n {
			l.mask = make([]int32, n)
		}
		l.mask = l.mask[:n]
		return nil
	}
	l.colLo, l.colHi, l.colSize = growInts(l.colLo, l.outW), growInts(l.colHi, l.outW), growInts(l.colSize, l.outW)
	for pw := range l.outW {
		ws := pw*l.strideW - l.padW
		we := min(ws+l.kw, l.width+l.padW)
		l.colLo[pw], l.colHi[pw], l.colSize[pw] = max(ws, 0), min(we, l.width), we-ws
	}
	l.spread = growFloats(l.spread, l.threads()*l.outH*l.width)
	return nil
}

// Forward pools every plane; with several threads the planes are shared
// out among them.
func (l *Pooling) Forward(bottom, top []*Blob) error {
	l.x, l.y = bottom[0].DataSlice(), top[0].DataSlice()
	l.pending = nil
	l.runner.run(l.workers(), l.parts(), l.fwdFn)
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

// parts returns how many parts the planes are cut into: four per
// goroutine, so that a goroutine held back by another process leaves
// little to wait for.
func (l *Pooling) parts() int {
	if w := l.workers(); w > 1 {
		return min(4*w, l.num*l.channels)
	}
	return 1
}

// poolMinWork is the least number of input values worth a goroutine.
const poolMinWork = 1 << 15

// poolStreamBytes is the size of a bottom gradient from which MAX
// pooling writes it by non-temporal stores (kernel.MaxPoolBackwardPlanesStream):
// several times a core's L2 cache, so that the next layer would read it
// back from memory (or the last-level cache) anyway, and the stores
// save the read for ownership of every line (measured on CIFAR-10
// quick's pool1, 13 MB: backward about 1.5× faster, conv1's backward
// unchanged).
const poolStreamBytes = 8 << 20

// forwardWorker pools the planes of part p.
func (l *Pooling) forwardWorker(_, p int) {
	lo, hi := span(p, l.parts(), l.num*l.channels)
	l.forwardPlanes(l.x[lo*l.height*l.width:], lo, hi)
}

// streams reports whether the layer's bottom is large enough
// (poolStreamBytes) that Backward writes its gradient by non-temporal
// stores. A fused group's pooling, whose planes are in the core's cache,
// does not.
func (l *Pooling) streams() bool {
	return 4*l.num*l.channels*l.height*l.width >= poolStreamBytes
}

// forwardPlanes pools the planes [lo, hi) into l.y, reading them from x,
// which starts at plane lo (l.x's, or a fused convolution's buffer):
// unpadded 2×2 MAX and 3×3 MAX and AVE windows of stride 2 by one kernel
// call for the planes, other shapes plane by plane.
func (l *Pooling) forwardPlanes(x []float32, lo, hi int) {
	y := l.y
	hw, phw := l.height*l.width, l.outH*l.outW
	if l.method == caffepb.PoolingParameter_MAX && (l.plane2s2() || l.plane3s2()) {
		kernel.MaxPoolPlanes(y[lo*phw:hi*phw], l.mask[lo*phw:hi*phw], x[:(hi-lo)*hw], hi-lo, l.height, l.width, l.outH, l.outW, l.kh, l.kw, 2, 2)
		return
	}
	if l.method == caffepb.PoolingParameter_AVE && l.plane3s2() {
		kernel.AvePoolPlanes(y[lo*phw:hi*phw], x[:(hi-lo)*hw], hi-lo, l.height, l.width, l.outH, l.outW, 3, 3, 2, 2)
		return
	}
	for pl := lo; pl < hi; pl++ {
		xp := x[(pl-lo)*hw : (pl-lo+1)*hw]
		if l.method == caffepb.PoolingParameter_MAX {
			l.maxPlane(xp, y[pl*phw:(pl+1)*phw], l.mask[pl*phw:(pl+1)*phw])
		} else {
			l.avePlane(xp, y[pl*phw:(pl+1)*phw])
		}
	}
}

// maxPlane max-pools one H×W plane into the pooled plane y, recording the
// index of each maximum: the windows that lie inside the plane are
// computed by one kernel.MaxPoolRows call, those whose columns lie inside
// (rows clipped) a row of outputs at a time by kernel.MaxPoolRow, and the
// few at the left and right edges one by one.
func (l *Pooling) maxPlane(x, y []float32, mask []int32) {
	w := l.width
	lo, hi := l.innerLo, max(l.innerLo, l.innerHi)
	inner := lo < hi && l.rowLo < l.rowHi
	if inner {
		c := (l.rowLo*l.strideH-l.padH)*w + lo*l.strideW - l.padW
		o := l.rowLo*l.outW + lo
		kernel.MaxPoolRows(y[o:], mask[o:], x[c:], l.rowHi-l.rowLo, hi-lo, l.kh, w, l.kw, l.strideW, int32(c), l.outW, l.strideH*w)
	}
	for ph := range l.outH {
		if inner && ph >= l.rowLo && ph < l.rowHi {
			if ph == l.rowLo {
				// The edge columns of the inner rows, a column per call.
				for pw := range l.outW {
					if pw < lo || pw >= hi {
						l.maxColumn(x, y, mask, pw)
					}
				}
			}
			continue
		}
		hs := ph*l.strideH - l.padH
		he := min(hs+l.kh, l.height)
		hs = max(hs, 0)
		yr, mr := y[ph*l.outW:(ph+1)*l.outW], mask[ph*l.outW:(ph+1)*l.outW]
		if he <= hs {
			for pw := range yr {
				yr[pw], mr[pw] = -math.MaxFloat32, -1
			}
			continue
		}
		for pw := range lo {
			l.maxWindow(x, hs, he, pw, yr[pw:pw+1], mr[pw:pw+1])
		}
		if lo < hi {
			c := hs*w + lo*l.strideW - l.padW
			kernel.MaxPoolRow(yr[lo:hi], mr[lo:hi], x[c:], hi-lo, he-hs, w, l.kw, l.strideW, int32(c))
		}
		for pw := hi; pw < l.outW; pw++ {
			l.maxWindow(x, hs, he, pw, yr[pw:pw+1], mr[pw:pw+1])
		}
	}
}

// plane2s2 reports whether the pooling has the unpadded 2×2 windows of
// stride 2 (LeNet's) that kernel.MaxPoolPlanes and
// kernel.MaxPoolBackwardPlanes pool a run of planes at a time.
func (l *Pooling) plane2s2() bool {
	return l.padH == 0 && l.padW == 0 && l.kh == 2 && l.kw == 2 && l.strideH == 2 && l.strideW == 2
}

// plane3s2 reports whether the pooling has the unpadded, overlapping 3×3
// windows of stride 2 (CIFAR-10 quick's and AlexNet's) that the kernels
// pool a whole plane at a time (kernel.MaxPoolPlane, kernel.AvePoolPlane
// and their gradients).
func (l *Pooling) plane3s2() bool {
	return l.padH == 0 && l.padW == 0 && l.kh == 3 && l.kw == 3 && l.strideH == 2 && l.strideW == 2
}

// maxColumn pools output column pw of the inner rows (whose windows'
// rows lie inside the plane), its windows clipped to the plane's columns.
func (l *Pooling) maxColumn(x, y []float32, mask []int32, pw int) {
	w := l.width
	ws := pw*l.strideW - l.padW
	we := min(ws+l.kw, w)
	ws = max(ws, 0)
	if we <= ws {
		for ph := l.rowLo; ph < l.rowHi; ph++ {
			y[ph*l.outW+pw], mask[ph*l.outW+pw] = -math.MaxFloat32, -1
		}
		return
	}
	c := (l.rowLo*l.strideH-l.padH)*w + ws
	o := l.rowLo*l.outW + pw
	kernel.MaxPoolRows(y[o:], mask[o:], x[c:], l.rowHi-l.rowLo, 1, l.kh, w, we-ws, 1, int32(c), l.outW, l.strideH*w)
}

// maxWindow sets y[0] to the maximum of the window of output column pw
// over rows [hs, he) (not empty), clipped to the plane, and mask[0] to its
// index: the first maximal element in row-major order, as Caffe (−FLT_MAX
// and −1 for an empty window).
func (l *Pooling) maxWindow(x []float32, hs, he, pw int, y []float32, mask []int32) {
	w := l.width
	ws := pw*l.strideW - l.padW
	we := min(ws+l.kw, w)
	ws = max(ws, 0)
	if we <= ws {
		y[0], mask[0] = -math.MaxFloat32, -1
		return
	}
	c := hs*w + ws
	kernel.MaxPoolRow(y, mask, x[c:], 1, he-hs, w, we-ws, 1, int32(c))
}

// aveRows returns output row ph's window rows clipped to the plane,
// [h0, h1), and their number with the padding, which Caffe's divisor
// counts.
func (l *Pooling) aveRows(ph int) (h0, h1, size int) {
	hs := ph*l.strideH - l.padH
	he := min(hs+l.kh, l.height+l.padH)
	return max(hs, 0), min(he, l.height), he - hs
}

// avePlane average-pools one plane: each window's sum, added in Caffe's
// order, divided by its size with the padding: the windows that lie
// inside the plane are averaged by one kernel.AvePoolRows call, those
// whose columns lie inside a row of outputs at a time by
// kernel.AvePoolRow, the few at the edges one by one.
func (l *Pooling) avePlane(x, y []float32) {
	w := l.width
	lo, hi := l.innerLo, max(l.innerLo, l.innerHi)
	inner := lo < hi && l.rowLo < l.rowHi
	if inner {
		// The windows inside the plane, in one call.
		c := (l.rowLo*l.strideH-l.padH)*w + lo*l.strideW - l.padW
		o := l.rowLo*l.outW + lo
		kernel.AvePoolRows(y[o:], x[c:], l.rowHi-l.rowLo, hi-lo, l.kh, w, l.kw, l.strideW, float32(l.kh*l.kw), l.outW, l.strideH*w)
	}
	for ph := range l.outH {
		h0, h1, rows := l.aveRows(ph)
		yr := y[ph*l.outW : (ph+1)*l.outW]
		if h1 <= h0 {
			clear(yr)
			continue
		}
		innerRow := inner && ph >= l.rowLo && ph < l.rowHi
		if innerRow {
			if ph == l.rowLo {
				// The edge columns of the inner rows, a column per call.
				for pw := range l.outW {
					if pw < lo || pw >= hi {
						l.aveColumn(x, y, pw)
					}
				}
			}
			continue
		}
		if lo < hi {
			c := h0*w + lo*l.strideW - l.padW
			kernel.AvePoolRow(yr[lo:hi], x[c:], hi-lo, h1-h0, w, l.kw, l.strideW, float32(rows*l.kw))
		}
		for pw := range l.outW {
			if pw >= lo && pw < hi {
				continue
			}
			w0, w1 := l.colLo[pw], l.colHi[pw]
			div := float32(rows * l.colSize[pw])
			if w1 <= w0 {
				yr[pw] = 0
				continue
			}
			kernel.AvePoolRow(yr[pw:pw+1], x[h0*w+w0:], 1, h1-h0, w, w1-w0, 1, div)
		}
	}
}

// aveColumn averages output column pw of the inner rows (whose windows'
// rows lie inside the plane), its windows clipped to the plane's columns
// and divided by their size with the padding.
func (l *Pooling) aveColumn(x, y []float32, pw int) {
	w0, w1 := l.colLo[pw], l.colHi[pw]
	if w1 <= w0 {
		for ph := l.rowLo; ph < l.rowHi; ph++ {
			y[ph*l.outW+pw] = 0
		}
		return
	}
	c := (l.rowLo*l.strideH-l.padH)*l.width + w0
	o := l.rowLo*l.outW + pw
	div := float32(l.kh * l.colSize[pw])
	kernel.AvePoolRows(y[o:], x[c:], l.rowHi-l.rowLo, 1, l.kh, l.width, w1-w0, 1, div, l.outW, l.strideH*l.width)
}

// Backward routes each output gradient to the window's maximum (MAX) or
// spreads it evenly over the window (AVE).
func (l *Pooling) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	if !wantDown(propagateDown) {
		return
	}
	if f := l.pending; f != nil {
		if l.method == caffepb.PoolingParameter_MAX {
			f.conv.writePoolMask(l)
		}
		l.pending = nil
	}
	l.y, l.x = top[0].DiffSlice(), bottom[0].DiffSlice()
	l.runner.run(l.workers(), l.parts(), l.bwdFn)
	l.x, l.y = nil, nil
}

// backwardWorker computes the gradient of the planes of part p as
// goroutine w.
func (l *Pooling) backwardWorker(w, p int) {
	lo, hi := span(p, l.parts(), l.num*l.channels)
	l.backwardPlanes(w, l.x[lo*l.height*l.width:], lo, hi, l.streams())
}

// backwardPlanes computes the gradient of the planes [lo, hi) from l.y,
// as goroutine w, into dx, which starts at plane lo (l.x's, or a fused
// convolution's buffer); with stream (see streams) MAX pooling writes it
// by non-temporal stores where the kernels can.
func (l *Pooling) backwardPlanes(w int, dx []float32, lo, hi int, stream bool) {
	dy := l.y
	hw, phw := l.height*l.width, l.outH*l.outW
	// Each plane is cleared just before its gradients are added, while it
	// is in the cache.
	if l.method == caffepb.PoolingParameter_MAX {
		// Without padding the kernels know the windows of a plane (3×3
		// and 2×2 windows of stride 2 are then written an input at a
		// time, 2×2 ones for the whole run of planes in one call);
		// otherwise windows that do not overlap give each input at most
		// one gradient, which the kernels scatter at once.
		if l.padH == 0 && l.padW == 0 {
			back := kernel.MaxPoolBackwardPlanes
			if stream {
				back = kernel.MaxPoolBackwardPlanesStream
			}
			back(dx[:(hi-lo)*hw], dy[lo*phw:hi*phw], l.mask[lo*phw:hi*phw], hi-lo,
				l.height, l.width, l.outH, l.outW, l.kh, l.kw, l.strideH, l.strideW)
			return
		}
		disjoint := l.kh <= l.strideH && l.kw <= l.strideW
		for pl := lo; pl < hi; pl++ {
			d, g, m := dx[(pl-lo)*hw:(pl-lo+1)*hw], dy[pl*phw:(pl+1)*phw], l.mask[pl*phw:(pl+1)*phw]
			kernel.MaxPoolBackward(d, g, m, disjoint)
		}
		return
	}
	if l.plane3s2() {
		kernel.AvePoolBackwardPlanes(dx[:(hi-lo)*hw], dy[lo*phw:hi*phw], hi-lo, l.height, l.width, l.outH, l.outW, 3, 3, 2, 2)
		return
	}
	size := l.outH * l.width
	r := l.spread[w*size : (w+1)*size]
	for pl := lo; pl < hi; pl++ {
		l.aveBackwardPlane(dx[(pl-lo)*hw:(pl-lo+1)*hw], dy[pl*phw:(pl+1)*phw], r)
	}
}

// aveBackwardPlane spreads each output gradient of one plane, divided by
// its window's size, over the window. Each row of outputs is first spread
// along one plane row of r (outH rows of the plane's width), each value
// added to the row's sum from zero in the order of the outputs; then each
// row of the plane is the sum of the spread rows of the windows that
// cover it, added in the order of the outputs: the additions of Caffe's
// loop over the outputs, grouped by output row, with one pass over each
// plane row instead of one per window covering it. (A sum that starts
// from zero is never −0, so the first spread row is copied as it is.)
func (l *Pooling) aveBackwardPlane(d, g, r []float32) {
	w := l.width
	for ph := range l.outH {
		rr := r[ph*w : (ph+1)*w]
		clear(rr)
		_, _, rows := l.aveRows(ph)
		colLo, colHi, colSize := l.colLo[:l.outW], l.colHi[:l.outW], l.colSize[:l.outW]
		for pw, v := range g[ph*l.outW : (ph+1)*l.outW] {
			v /= float32(rows * colSize[pw])
			run := rr[colLo[pw]:colHi[pw]]
			for c := range run {
				run[c] += v
			}
		}
	}
	// The output rows whose windows cover plane row h are [ph0, ph1):
	// both bounds only grow with h.
	ph0, ph1 := 0, 0
	for h := range l.height {
		for ph1 < l.outH {
			if h0, _, _ := l.aveRows(ph1); h0 > h {
				break
			}
			ph1++
		}
		for ph0 < ph1 {
			if _, h1, _ := l.aveRows(ph0); h1 > h {
				break
			}
			ph0++
		}
		dr := d[h*w : (h+1)*w]
		switch ph1 - ph0 {
		case 0:
			clear(dr)
		case 1:
			copy(dr, r[ph0*w:(ph0+1)*w])
		default:
			kernel.Add(dr, r[ph0*w:(ph0+1)*w], r[(ph0+1)*w:(ph0+2)*w])
			for ph := ph0 + 2; ph < ph1; ph++ {
				kernel.Add(dr, dr, r[ph*w:(ph+1)*w])
			}
		}
	}
}

// growInts returns s resliced to n values, reallocated only when its
// capacity is too small.
func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
