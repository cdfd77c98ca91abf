package caffe

import (
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "Deconvolution", Bottoms: AtLeast(1), Tops: AtLeast(1), New: newDeconvolution,
		Shape: ruleOf(func(l *Deconvolution, c *ShapeContext) error { return l.convSpec.inferShapes(c, convTransposed) })})
}

// Deconvolution is Caffe's transposed convolution (convolution_param, as
// Convolution; 2-D, channel axis 1): its forward pass is a convolution's
// backward pass to the data, so an H×W input becomes
// stride·(H−1) + dilation·(kernel−1) + 1 − 2·pad rows (and columns). The
// weights are C_in × num_output/group × kh × kw, as Caffe stores them
// (FCNs fill them with the bilinear filler to upsample). Each bottom has
// its top; all share the weights.
//
// With several threads the images are shared out in parts that the
// threads claim one at a time, each thread with its own column buffer; in
// Backward every part but the first sums its share of the parameter
// gradients in its own buffers, which are then added in order, so that
// the results do not depend on the timing.
type Deconvolution struct {
	layerBase
	convSpec
	channels             int
	inH, inW, outH, outW int
	num                  int
	cols                 [][]float32 // one column buffer per worker
	grads                []*convGrads
	workers, parts       int

	// The current call, for the workers.
	runner       parallelRunner
	fwdFn, bwdFn func(w, p int)
	x, y, dy, dx []float32
	down         bool
}

var _ Layer = (*Deconvolution)(nil)

func newDeconvolution(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	spec, err := newConvSpec(def, true)
	if err != nil {
		return nil, err
	}
	if spec.axisParam != 1 {
		return nil, fmt.Errorf("convolution_param.axis = %d: Deconvolution supports the channel axis 1 only", spec.axisParam)
	}
	l := &Deconvolution{layerBase: newLayerBase("Deconvolution", def, env), convSpec: spec}
	l.fwdFn, l.bwdFn = l.forwardWorker, l.backwardWorker
	return l, nil
}

// Setup checks the bottoms and creates and fills the weights and bias.
func (l *Deconvolution) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	if len(bottom) != len(top) {
		return l.errorf("takes one top per bottom, got %d bottoms and %d tops", len(bottom), len(top))
	}
	if err := l.notInPlace(bottom, top); err != nil {
		return err
	}
	if err := l.setup2D(bottom[0].NumAxes(), 1); err != nil {
		return l.errorf("input of shape %v: %w", bottom[0].shape, err)
	}
	l.channels = bottom[0].Dim(1)
	if l.channels%l.group != 0 {
		return l.errorf("%d input channels is not a multiple of group %d", l.channels, l.group)
	}
	shapes := [][]int{{l.channels, l.numOutput / l.group, l.kh, l.kw}}
	if l.bias {
		shapes = append(shapes, []int{l.numOutput})
	}
	p := orDefaults(l.def.GetConvolutionParam())
	if err := l.initWeightsBias(shapes, p.GetWeightFiller(), p.GetBiasFiller()); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape computes the output size and shapes the tops.
func (l *Deconvolution) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if b.NumAxes() != 4 || b.Dim(1) != l.channels {
		return l.errorf("input of shape %v: want N×%d×H×W", b.Shape(), l.channels)
	}
	for i, o := range bottom[1:] {
		if !sameShape(o, b) {
			return l.errorf("bottom %d has shape %v, bottom 0 %v; all must match", i+1, o.Shape(), b.Shape())
		}
	}
	l.inH, l.inW = b.Dim(2), b.Dim(3)
	l.outH = deconvOutSize(l.inH, l.kh, l.padH, l.strideH, l.dilH)
	l.outW = deconvOutSize(l.inW, l.kw, l.padW, l.strideW, l.dilW)
	if l.outH <= 0 || l.outW <= 0 {
		return l.errorf("input %d×%d gives an empty %d×%d output", l.inH, l.inW, l.outH, l.outW)
	}
	for _, t := range top {
		t.Reshape(b.Dim(0), l.numOutput, l.outH, l.outW)
	}
	l.num = b.Dim(0)
	l.workers = max(1, min(l.threads(), l.num))
	l.parts = 1
	if l.workers > 1 {
		// Several parts per thread, so that one held back by another
		// process leaves little to wait for.
		l.parts = min(l.num, 4*l.workers)
	}
	for len(l.cols) < l.workers {
		l.cols = append(l.cols, nil)
	}
	for i := range l.cols[:l.workers] {
		l.cols[i] = growFloats(l.cols[i], l.numOutput*l.kh*l.kw*l.inH*l.inW)
	}
	for len(l.grads) < l.parts {
		l.grads = append(l.grads, &convGrads{})
	}
	for i, g := range l.grads[:l.parts] {
		if i > 0 {
			g.dw = growFloats(g.dw, l.blobs[0].Count())
			g.db = growFloats(g.db, l.numOutput)
		}
	}
	return nil
}

// sizes returns the per-group sizes: bottom channels, column rows, and
// the values of one input and one output plane.
func (l *Deconvolution) sizes() (cg, k, inHW, outHW int) {
	return l.channels / l.group, l.numOutput / l.group * l.kh * l.kw, l.inH * l.inW, l.outH * l.outW
}

// Forward scatters every input value through the kernel into the output
// (col = Wᵀ·x per group, then col2im), then adds the bias.
func (l *Deconvolution) Forward(bottom, top []*Blob) error {
	for i, b := range bottom {
		l.x, l.y = b.DataSlice(), top[i].DataSlice()
		l.runner.run(l.workers, l.parts, l.fwdFn)
	}
	l.x, l.y = nil, nil
	return nil
}

// forwardWorker computes the images of part p as goroutine w.
func (l *Deconvolution) forwardWorker(w, p int) {
	cg, k, inHW, outHW := l.sizes()
	wt := l.blobs[0].DataSlice()
	col := l.cols[w]
	lo, hi := span(p, l.parts, l.num)
	for n := lo; n < hi; n++ {
		xn := l.x[n*l.channels*inHW : (n+1)*l.channels*inHW]
		yn := l.y[n*l.numOutput*outHW : (n+1)*l.numOutput*outHW]
		for g := 0; g < l.group; g++ {
			kernel.Sgemm(true, false, k, inHW, cg, 1, wt[g*cg*k:], k, xn[g*cg*inHW:], inHW, 0, col[g*k*inHW:], inHW)
		}
		kernel.Col2im(col, l.numOutput, l.outH, l.outW, l.kh, l.kw, l.padH, l.padW, l.strideH, l.strideW, l.dilH, l.dilW, yn)
		if l.bias {
			bias := l.blobs[1].DataSlice()
			for o := 0; o < l.numOutput; o++ {
				plane := yn[o*outHW : (o+1)*outHW]
				for j := range plane {
					plane[j] += bias[o]
				}
			}
		}
	}
}

// Backward computes the gradients: the bias sums the output gradient per
// channel; with col = im2col(dy), the weights accumulate x·colᵀ and the
// input gets W·col per group (a convolution of dy).
func (l *Deconvolution) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	for i, b := range bottom {
		l.dy, l.x, l.dx = top[i].DiffSlice(), b.DataSlice(), b.DiffSlice()
		l.down = i < len(propagateDown) && propagateDown[i]
		l.runner.run(l.workers, l.parts, l.bwdFn)
		for _, g := range l.grads[1:l.parts] {
			if l.bias && l.paramGrad(1) {
				db := l.blobs[1].DiffSlice()
				kernel.Add(db, db, g.db)
			}
			if g.wroteDW {
				dw := l.blobs[0].DiffSlice()
				kernel.Add(dw, dw, g.dw)
			}
		}
	}
	l.x, l.dx, l.dy = nil, nil, nil
}

// backwardWorker handles the images of part p as goroutine w: part 0
// adds its share of the parameter gradients to the parameters' diffs,
// the others to their buffers.
func (l *Deconvolution) backwardWorker(w, p int) {
	cg, k, inHW, outHW := l.sizes()
	wt := l.blobs[0].DataSlice()
	col := l.cols[w]
	db, dw := l.blobs[1%len(l.blobs)].DiffSlice(), l.blobs[0].DiffSlice()
	g := l.grads[p]
	g.wroteDW = false
	if p > 0 {
		db, dw = g.db, g.dw
		clear(db)
		clear(dw)
	}
	lo, hi := span(p, l.parts, l.num)
	for n := lo; n < hi; n++ {
		dyn := l.dy[n*l.numOutput*outHW : (n+1)*l.numOutput*outHW]
		if l.bias && l.paramGrad(1) {
			for o := 0; o < l.numOutput; o++ {
				var s float32
				for _, v := range dyn[o*outHW : (o+1)*outHW] {
					s += v
				}
				db[o] += s
			}
		}
		if !l.down && !l.paramGrad(0) {
			continue
		}
		kernel.Im2col(dyn, l.numOutput, l.outH, l.outW, l.kh, l.kw, l.padH, l.padW, l.strideH, l.strideW, l.dilH, l.dilW, col)
		xn := l.x[n*l.channels*inHW:]
		for gr := 0; gr < l.group; gr++ {
			colg := col[gr*k*inHW:]
			if l.paramGrad(0) {
				kernel.Sgemm(false, true, cg, k, inHW, 1, xn[gr*cg*inHW:], inHW, colg, inHW, 1, dw[gr*cg*k:], k)
				g.wroteDW = true
			}
			if l.down {
				dx := l.dx[n*l.channels*inHW:]
				kernel.Sgemm(false, false, cg, inHW, k, 1, wt[gr*cg*k:], k, colg, inHW, 0, dx[gr*cg*inHW:], inHW)
			}
		}
	}
}
