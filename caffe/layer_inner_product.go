package caffe

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

func init() {
	mustRegisterLayerType(LayerType{Name: "InnerProduct", Bottoms: Exactly(1), Tops: Exactly(1), New: newInnerProduct, Shape: ruleOf((*InnerProduct).inferShapes)})
}

// InnerProduct is a fully connected layer: the bottom is flattened from
// axis on into M rows of K values, and top = bottom·Wᵀ + b, with weights
// W [N, K] (or [K, N] with transpose) and bias b [N].
type InnerProduct struct {
	layerBase
	n         int
	bias      bool
	transpose bool
	axisParam int
	axis      int
	m, k      int
	yT        []float32 // [N, M]: the output transposed (see Forward)

	// The products run on the layers' goroutines (parallelRunner), split
	// as kernel.SgemmParallel splits them: the goroutines that ran the
	// layer before are still polling for work and take the parts at
	// once, where the GEMM's own goroutines would have to be woken.
	runner    parallelRunner
	gemm      ipGemm
	gemmFn    func(w, p int)
	fwd       ipForward
	fwdFn     func(w, p int)
	fwdTaskFn func(w, q int) // forwardTask
	// fwdNext: the small inner product whose forward pass Forward's top
	// parts compute, each for its images (forwardNext), or nil;
	// fwdNextRan reports that the last Forward did.
	fwdNext    *InnerProduct
	fwdNextRan bool

	// The input gradient by depth blocks (inputGradBlocks): the run's
	// blocks and their size, the buffers of blocks 1, 2, …, and the
	// gradient being computed; with dxAddLater the weight gradient's
	// parts add the buffers (an updating Backward).
	dxBlocks, dxSize int
	dxBufs           [][]float32
	dxDY, dxOut      []float32
	dxAddLater       bool
	dxFn, dxAddFn    func(w, p int)
	// With dxAddLater on more than one thread, the blocks run in the
	// weight gradient's run (weightGradUpdate), a part each, beside its
	// parts: dxPending is set until then; dxState[b] is block b's state
	// (taskTodo, taskRunning, taskDone), for the weight gradient's parts,
	// which wait for every block before they add the blocks' sums and
	// update the weights the blocks read; biasInRun: the bias gradient
	// is summed in the last block's part.
	dxPending, biasInRun bool
	dxState              []atomic.Int32
	// dxCross: the run computes two blocks crossed (crossTask), four
	// tasks in dxState.
	dxCross bool
	// top: the small inner product above whose backward pass this one's
	// takes into its run (chainTop); topTasks: the run does, its two
	// parts the tasks of dxState from topState.
	top      *InnerProduct
	topTasks bool
	// topInRun: as a top, its backward pass ran in the parts of the
	// run below, which updated its weights (chainTopEnd).
	topInRun bool
	// The weight gradient's run with the blocks: part q runs block
	// wgTask[q] when it is ≥ 0, else weight gradient part −wgTask[q]−1.
	wgTask []int
	wgFn   func(w, p int)
	// wgShares[sh] is the first of share sh's tasks in wgTask (and,
	// last, their number), and wgShareFn runs a share whole
	// (ipWholeShares).
	wgShares  []int
	wgShareFn func(w, sh int)
	// wgSplit cuts the weight gradient's rows between the shares by
	// their measured times (ipBalanceRows), and wgSplitFn runs a share
	// so cut.
	wgSplit   ipRowSplit
	wgSplitFn func(w, sh int)
	blockFn   func(w, b int) // inputBlockTask

	// The input and weight gradients side by side (backwardPair): the
	// gradient's arguments, and the run's function.
	pair   ipPair
	pairFn func(w, p int)

	// writeDW makes Backward write the weight gradient instead of adding
	// it to the diff (see paramDiffWriter); updateDW, when set, updates
	// the weights as their gradient is computed (see paramUpdater), each
	// block of the gradient written into dwBufs[w] of the goroutine w
	// that computes it, which stays in the cache for the update, where
	// the diff would first be read into it.
	writeDW  bool
	updateDW func(w, lo, hi int, grad []float32)
	dwBufs   [][]float32

	// The backward pass in one pass over the weights (backwardFused):
	// its arguments, its run's function, and per goroutine the function
	// that hands a piece of the weight gradient to updateDW.
	fused    ipFused
	fusedFn  func(w, p int)
	fusedFns []func(row, col int, grad []float32)

	// relu: set while a net's forward pass runs the in-place ReLU of the
	// top with the layer (net_fuse.go): each part rectifies the columns
	// it wrote, while they are in its core's cache.
	relu *ReLU
	// dxReLU: set while a net's backward pass runs the gradient of the
	// in-place ReLU of the bottom (net_fuse.go) with the layer's, through
	// the ReLU's values dxReLUY: the part that computes the input
	// gradient beside the weight gradient (backwardPair) takes it in
	// (dxReLUDone), else Backward does at its end.
	dxReLU     *ReLU
	dxReLUY    []float32
	dxReLUDone bool
}

// ipFused is backwardFused's run: the output gradient, the bottom's
// values and gradient (nil when not asked for), the number of parts.
type ipFused struct {
	dy, x, dx []float32
	parts     int
	ahead     int // the distance of an update's next piece: a row of W
}

// ipForward is Forward's run (W stored [N, K]): its parts compute rows of
// topᵀ with kernel.FCForward, then transpose those rows into the top,
// adding the bias. With more than one part the bottom is packed once,
// into packed, for all of them (kernel.FCForwardPacked), where each part
// of FCForward packs it whole again; the parts share the packing
// (packForward).
type ipForward struct {
	parts     int
	x, y      []float32
	packed    []float32
	packedBuf []float32 // kept from run to run
	// The packing's units (packForward), the next unclaimed one and
	// those done.
	packUnits          int
	packNext, packDone atomic.Int32
	// With the top written by images (forwardByImages), the run's
	// tasks: task[q] is product part task[q] when ≥ 0, else the top's
	// part −task[q]−1 of topParts; prodState[p] is product part p's
	// state (taskTodo, taskRunning, taskDone).
	byImages  bool
	topParts  int
	task      []int
	prodState []atomic.Int32
}

// ipPair is backwardPair's run: the output gradient, the bottom's values
// and gradient, the weight gradient's beta.
type ipPair struct {
	dy, x, dx, dw []float32
	beta          float32
}

// ipGemm is the product that InnerProduct's runner computes: one of the
// fully connected products (fc) in parts, or a split Sgemm.
type ipGemm struct {
	fc             fcProduct
	parts          int
	split          kernel.GemmSplit
	transA, transB bool
	m, n, k        int
	a, b, c        []float32
	lda, ldb, ldc  int
	beta           float32
	update         bool // a weight gradient whose parts updateDW updates
}

var _ Layer = (*InnerProduct)(nil)

func newInnerProduct(def *caffepb.LayerParameter, env *LayerEnv) (Layer, error) {
	p := orDefaults(def.GetInnerProductParam())
	if p.GetNumOutput() == 0 {
		return nil, fmt.Errorf("inner_product_param.num_output must be > 0")
	}
	if err := CheckFiller(p.GetWeightFiller()); err != nil {
		return nil, fmt.Errorf("weight_filler: %w", err)
	}
	if err := CheckFiller(p.GetBiasFiller()); err != nil {
		return nil, fmt.Errorf("bias_filler: %w", err)
	}
	l := &InnerProduct{
		layerBase: newLayerBase("InnerProduct", def, env),
		n:         int(p.GetNumOutput()),
		bias:      p.GetBiasTerm(),
		transpose: p.GetTranspose(),
		axisParam: int(p.GetAxis()),
	}
	l.gemmFn, l.fwdFn = l.gemmPart, l.forwardPart
	l.fwdTaskFn = l.forwardTask
	l.dxFn, l.dxAddFn = l.inputGradBlock, l.inputGradAdd
	l.wgFn, l.blockFn = l.weightGradTask, l.inputBlockTask
	l.wgShareFn, l.wgSplitFn = l.weightGradShare, l.weightGradSplit
	l.pairFn = l.pairPart
	l.fusedFn = l.fusedPart
	return l, nil
}

// sgemm computes C = A·B + beta·C (A, B transposed as asked) over the
// layer's threads; the result is SgemmParallel's, bit for bit.
func (l *InnerProduct) sgemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sp := kernel.SplitSgemm(l.threads(), m, n, k)
	if sp.Parts <= 1 {
		kernel.Sgemm(transA, transB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		return
	}
	l.gemm = ipGemm{split: sp, transA: transA, transB: transB, m: m, n: n, k: k, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, beta: beta}
	l.runner.run(l.threads(), sp.Parts, l.gemmFn)
	l.gemm = ipGemm{}
}

// fcProduct is one of kernel.FCForward, FCInputGrad and FCWeightGrad.
type fcProduct func(parts, part, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// fc computes a product of W stored [N, K] with kernel's fully connected
// products, which read the weights (or their gradient) in place and give
// Sgemm's results bit for bit, in parts over the layer's threads (for a
// product that cuts its parts by row tiles, FCWeightGrad, as fcRowParts
// says); the result does not depend on the number of parts.
func (l *InnerProduct) fc(f fcProduct, rowTiles bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	parts := kernel.FCParts(l.threads(), m, n, k)
	if rowTiles {
		parts = fcRowParts(parts, m, l.threads())
	}
	if parts <= 1 {
		f(1, 0, m, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	l.gemm = ipGemm{fc: f, parts: parts, m: m, n: n, k: k, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, beta: beta}
	l.runner.run(l.threads(), parts, l.gemmFn)
	l.gemm = ipGemm{}
}

// gemmPart computes part p of l.gemm.
func (l *InnerProduct) gemmPart(w, p int) {
	g := &l.gemm
	if g.fc != nil {
		if !g.update {
			g.fc(g.parts, p, g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc)
			return
		}
		lo, hi := kernel.FCWeightGradRows(g.parts, p, g.m, g.n, g.k)
		l.weightGradRows(w, lo, hi, p, g.parts)
		return
	}
	kernel.SgemmPart(g.split, p, g.transA, g.transB, g.m, g.n, g.k, 1, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc)
}

// weightGradRows computes rows [lo, hi) of the weight gradient l.gemm
// (into goroutine w's buffer, or added to the diff), then, once the input
// gradient's depth blocks are done, adds part p of parts of their sums
// and updates the rows' weights, which the blocks read: a part of the
// weight gradient with its update (gemmPart, weightGradSplit).
func (l *InnerProduct) weightGradRows(w, lo, hi, p, parts int) {
	l.weightGradFinish(w, lo, hi, p, parts, l.weightGradCompute(w, lo, hi))
}

// weightGradCompute computes rows [lo, hi) of the weight gradient l.gemm
// on goroutine w, as weightGradRows does, and returns the buffer holding
// them (nil: the diff).
func (l *InnerProduct) weightGradCompute(w, lo, hi int) []float32 {
	g := &l.gemm
	l.needTop(w, lo, hi)
	switch {
	case g.beta == 0 && lo < hi:
		grad := l.dwBufs[w][:(hi-lo)*g.ldc]
		kernel.FCWeightGradSpan(lo, hi, g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, 0, grad, g.ldc)
		return grad
	case lo < hi:
		kernel.FCWeightGradSpan(lo, hi, g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, g.beta, g.c[lo*g.ldc:], g.ldc)
	}
	return nil
}

// weightGradFinish ends weightGradRows once weightGradCompute has
// computed the rows' gradient into grad: it waits for the blocks, adds
// part p of parts of their sums and updates the rows.
func (l *InnerProduct) weightGradFinish(w, lo, hi, p, parts int, grad []float32) {
	switch {
	case l.dxCross:
		l.finishCrossRows(w, lo, hi)
	case l.dxPending:
		finishTasks(w, l.dxState[:l.dxBlocks], l.blockFn)
	}
	if l.dxOut != nil && !l.dxCross {
		l.addDepthBlocks(p, parts)
	}
	if lo < hi {
		l.updateDW(w, lo*l.gemm.ldc, hi*l.gemm.ldc, grad)
	}
}

// geometry returns, for an input of shape b, the axis the inputs are
// flattened from, their number K of values per row, and the weights'
// shape.
func (l *InnerProduct) geometry(b Shape) (axis, k int, weights Shape, err error) {
	if axis, err = canonicalAxis("inner_product_param.axis", l.axisParam, len(b)); err != nil {
		return 0, 0, nil, err
	}
	k = b.count(axis, len(b))
	if l.transpose {
		return axis, k, Shape{k, l.n}, nil
	}
	return axis, k, Shape{l.n, k}, nil
}

// inferShapes is InnerProduct's shape rule: the top is the bottom's axes
// before axis, then N; the weights are N×K (K×N transposed), the bias N.
func (l *InnerProduct) inferShapes(c *ShapeContext) error {
	c.Params = []Shape{nil}
	if l.bias {
		c.Params = append(c.Params, Shape{l.n})
	}
	if !c.Known() {
		return nil
	}
	b := c.Bottoms[0]
	axis, _, w, err := l.geometry(b)
	if err != nil {
		return c.Errorf("%w", err)
	}
	c.Params[0] = w
	c.Tops[0] = append(append(Shape{}, b[:axis]...), l.n)
	return nil
}

// Setup creates and fills the weights and bias.
func (l *InnerProduct) Setup(bottom, top []*Blob) error {
	if err := l.checkBlobs(bottom, top); err != nil {
		return err
	}
	axis, k, w, err := l.geometry(bottom[0].shape)
	if err != nil {
		return l.errorf("%w", err)
	}
	l.axis, l.k = axis, k
	shapes := [][]int{w}
	if l.bias {
		shapes = append(shapes, []int{l.n})
	}
	p := orDefaults(l.def.GetInnerProductParam())
	if err := l.initWeightsBias(shapes, p.GetWeightFiller(), p.GetBiasFiller()); err != nil {
		return err
	}
	return l.Reshape(bottom, top)
}

// Reshape shapes the top: the bottom's axes before axis, then N.
func (l *InnerProduct) Reshape(bottom, top []*Blob) error {
	b := bottom[0]
	if l.axis >= b.NumAxes() || b.CountFrom(l.axis) != l.k {
		return l.errorf("input of shape %v has %d values from axis %d, the weights expect K = %d",
			b.shape, b.CountFrom(min(l.axis, b.NumAxes())), l.axis, l.k)
	}
	l.m = b.CountRange(0, l.axis)
	reshapeHead(top[0], b, l.axis, l.n)
	if !l.transpose {
		l.yT = growFloats(l.yT, l.m*l.n)
	}
	return nil
}

// Forward computes top = bottom·Wᵀ + b. With W stored [N, K] it computes
// topᵀ = W·bottomᵀ, so that the large operand W is read along its rows (in
// place, by kernel.FCForward), and transposes the result while adding the
// bias.
func (l *InnerProduct) Forward(bottom, top []*Blob) error {
	x, y := bottom[0].DataSlice(), top[0].DataSlice()
	w := l.blobs[0].DataSlice()
	m, n, k := l.m, l.n, l.k
	var b []float32
	if l.bias {
		b = l.blobs[1].DataSlice()
	}
	l.fwdNextRan = false
	if l.transpose {
		beta := float32(0)
		if b != nil {
			for i := range m {
				copy(y[i*n:(i+1)*n], b)
			}
			beta = 1
		}
		l.sgemm(false, false, m, n, k, x, k, w, n, beta, y, n)
		if r := l.relu; r != nil {
			kernel.Relu(y[:m*n], y[:m*n], r.slope)
		}
		return nil
	}
	f := &l.fwd
	f.parts, f.x, f.y = fcRowParts(kernel.FCParts(l.threads(), n, m, k), n, l.threads()), x, y
	f.packUnits = 0
	if size := kernel.FCForwardPackSize(n, m, k); f.parts > 1 && size > 0 {
		f.packedBuf = growFloats(f.packedBuf, size)
		f.packed = f.packedBuf
		f.packUnits = min(l.threads(), (m+kernel.FCForwardPackPanel()-1)/kernel.FCForwardPackPanel())
		f.packNext.Store(0)
		f.packDone.Store(0)
	}
	f.byImages = f.parts > 1 && topByImages && m >= 2*pairImages
	if f.byImages {
		l.fwdNextRan = l.fwdNext != nil
		l.forwardByImages()
	} else {
		l.runner.run(l.threads(), f.parts, l.fwdFn)
	}
	f.x, f.y, f.packed = nil, nil, nil
	return nil
}

// topByImages lets Forward write the top by images on several threads
// (forwardByImages); benchmarks compare it off.
var topByImages = true

// forwardByImages runs Forward's product parts (rows of topᵀ) and then
// writes the top in parts by images, each part the top's rows of a run of
// whole units of pairImages images (transposed from every product part's
// rows, plus the bias, through the ReLU), instead of each product part
// writing its own columns of every row of the top: the top's rows are
// not cut at a cache line (16 images of any width are whole lines), where
// the columns of two parts meet within a line in nearly every row, and
// the two goroutines wrote that line at once (LeNet's ip1: 64 such lines
// of a 500-column top, with the ReLU's pass over them). The run's shares
// each hold product parts and then top parts; a top part waits for every
// product part, running any that no goroutine has begun (as the input
// gradient's blocks are run, weightGradWithBlocks), so that it never
// waits for a part that no running goroutine took. The same values: each
// is the product's sum plus the bias, one addition, then rectified.
func (l *InnerProduct) forwardByImages() {
	f := &l.fwd
	threads := l.threads()
	f.topParts = min(threads, (l.m+pairImages-1)/pairImages)
	if len(f.prodState) < f.parts {
		f.prodState = make([]atomic.Int32, f.parts)
	}
	for p := range f.parts {
		f.prodState[p].Store(taskTodo)
	}
	f.task = dealTasks(f.task, nil, threads, f.parts, f.topParts)
	l.runner.run(threads, len(f.task), l.fwdTaskFn)
}

// forwardTask runs task q of forwardByImages on goroutine w.
func (l *InnerProduct) forwardTask(w, q int) {
	f := &l.fwd
	if p := f.task[q]; p >= 0 {
		runTask(&f.prodState[p], w, p, l.fwdFn)
		return
	}
	finishTasks(w, f.prodState[:f.parts], l.fwdFn)
	m, n := l.m, l.n
	lo, hi := span(-f.task[q]-1, f.topParts, (m+pairImages-1)/pairImages)
	lo, hi = lo*pairImages, min(m, hi*pairImages)
	if lo >= hi {
		return
	}
	var b []float32
	if l.bias {
		b = l.blobs[1].DataSlice()[:n]
	}
	kernel.TransposeAdd(f.y[lo*n:], n, l.yT[lo:n*m], m, n, hi-lo, b)
	if r := l.relu; r != nil {
		y := f.y[lo*n : hi*n]
		kernel.Relu(y, y, r.slope)
	}
	if next := l.fwdNext; next != nil {
		next.forwardImages(lo, hi)
	}
}

// forwardPart computes part p of Forward: rows [lo, hi) of topᵀ, then,
// unless the top is written by images, columns [lo, hi) of the top from
// them, plus the bias.
func (l *InnerProduct) forwardPart(w, p int) {
	f := &l.fwd
	m, n, k := l.m, l.n, l.k
	if f.packUnits > 0 {
		l.packForward()
	}
	yT := l.yT[:n*m]
	if f.packed != nil {
		kernel.FCForwardPacked(f.parts, p, n, m, k, l.blobs[0].DataSlice(), k, f.packed, 0, yT, m)
	} else {
		kernel.FCForward(f.parts, p, n, m, k, l.blobs[0].DataSlice(), k, f.x, k, 0, yT, m)
	}
	if f.byImages {
		return
	}
	lo, hi := kernel.FCForwardRows(f.parts, p, n, m, k)
	var b []float32
	if l.bias {
		b = l.blobs[1].DataSlice()[lo:hi]
	}
	kernel.TransposeAdd(f.y[lo:], n, yT[lo*m:], m, hi-lo, m, b)
	if r := l.relu; r != nil {
		for i := range m {
			y := f.y[i*n+lo : i*n+hi]
			kernel.Relu(y, y, r.slope)
		}
	}
}

// packForward packs the bottom for Forward's parts (FCForwardPacked):
// the part takes units of the packing (runs of rows of the bottom, of
// images) until none is left, then waits for those that other parts took
// to be done. The packing is thus shared among the goroutines that run
// parts, the first to come taking the first rows (the calling goroutine,
// which computed the first images in the layers below), and a part never
// waits for a unit that no running goroutine took.
func (l *InnerProduct) packForward() {
	f := &l.fwd
	m, n, k := l.m, l.n, l.k
	for {
		u := int(f.packNext.Add(1)) - 1
		if u >= f.packUnits {
			break
		}
		func() {
			defer f.packDone.Add(1) // even on a panic, which the run re-raises
			panel := kernel.FCForwardPackPanel()
			panels := (m + panel - 1) / panel
			lo, hi := span(u, f.packUnits, panels)
			kernel.FCForwardPackRows(n, m, k, f.x, k, f.packed, lo*panel, min(m, hi*panel))
		}()
	}
	for f.packDone.Load() < int32(f.packUnits) {
		kernel.SpinYield()
	}
}

// writesParamDiff reports whether Backward can write the gradient of
// parameter j instead of adding to it: the weights, when their gradient
// is computed. The products sum each element from zero, so writing it
// gives the bits of adding it to a cleared diff.
func (l *InnerProduct) writesParamDiff(j int) bool { return j == 0 && l.paramGrad(0) }

// setWriteParamDiff makes the next Backward calls write the weight
// gradient (on) or add to it (off, the default).
func (l *InnerProduct) setWriteParamDiff(on bool) { l.writeDW = on }

// updatesParam reports whether Backward can update parameter j itself:
// the weights, when their gradient is computed and not transposed.
func (l *InnerProduct) updatesParam(j int) bool { return j == 0 && l.paramGrad(0) && !l.transpose }

// setParamUpdate makes the next Backward calls update the weights with
// fn, as soon as each block of their gradient is computed (nil: not).
// fn(w, lo, hi) updates values [lo, hi) of the weights on goroutine w of
// the layer's threads. The input gradient, which reads the weights, is
// computed first.
func (l *InnerProduct) setParamUpdate(fn func(w, lo, hi int, grad []float32)) {
	l.updateDW = fn
}

// defersParamDiff reports whether the next Backward, given an update
// function, hands it every piece of the weights' gradient in a buffer,
// which the update may overwrite, and never touches the diff of the
// weights (diffDeferrer): when it computes the gradient in one pass with
// the input gradient (backwardFused: kernel.FCBackward's buffer), or
// writes it block by block (weightGradUpdate with beta 0: the buffers
// dwBufs; LeNet's ip1), unless it computes it beside the input gradient
// (backwardPair), into the diff. The SGD step then writes no diff.
func (l *InnerProduct) defersParamDiff(j int) bool {
	return j == 0 && l.updatesParam(0) && l.writeDW && (kernel.FCBackwardFused(l.m, l.n, l.k) || !l.pairs())
}

// fcRowParts returns how many parts a fully connected product that
// splits its rows rows by tiles of kernel.FCRowTile() (FCForward,
// FCWeightGrad) takes on threads goroutines, given the parts
// kernel.FCParts chose: where the rows make few tiles (at most 4 per
// thread), a part per tile, so that the goroutines' shares, dealt tile
// by tile and taken over from the back, differ by at most a tile
// (CIFAR-10 quick's ip1: 64 rows in tiles of 14, 28 and 36 rows on two
// threads instead of 42 and 22); else parts. The products give the same
// values whatever the parts.
func fcRowParts(parts, rows, threads int) int {
	tile := kernel.FCRowTile()
	if tiles := (rows + tile - 1) / tile; parts > 1 && parts < tiles && tiles <= 4*threads {
		return tiles
	}
	return parts
}

// fcUpdateBlock is about how many values of the weights a block of the
// weight gradient that is updated at once holds: the block stays in L2
// between the product and the update.
const fcUpdateBlock = 1 << 17

// Backward accumulates the weight and bias gradients and computes the
// bottom's.
func (l *InnerProduct) Backward(top []*Blob, propagateDown []bool, bottom []*Blob) {
	dy, x := top[0].DiffSlice(), bottom[0].DataSlice()
	l.dxReLUDone = false
	l.backward(dy, x, propagateDown, bottom)
	if r := l.dxReLU; r != nil && !l.dxReLUDone && len(propagateDown) > 0 && propagateDown[0] {
		dx := bottom[0].DiffSlice()[:l.m*l.k]
		kernel.ReluGrad(dx, dx, l.dxReLUY[:l.m*l.k], r.slope)
	}
}

// backward is Backward's work on the layer's own gradients.
func (l *InnerProduct) backward(dy, x []float32, propagateDown []bool, bottom []*Blob) {
	m, n, k := l.m, l.n, l.k
	l.dxPending, l.biasInRun = false, false // as a panic may have left them
	l.topTasks = false
	if t := l.top; t != nil {
		// The top's backward pass comes first: in this one's run, or
		// in a run of its own.
		if l.topTasks = l.crossesBlocks(propagateDown); !l.topTasks {
			t.topRun()
		} else {
			l.dxState = growStates(l.dxState, topState+2)
			l.dxState[topState].Store(taskTodo)
			l.dxState[topState+1].Store(taskTodo)
		}
		t.topInRun = l.topTasks
		defer l.endTop()
	}
	if l.backwardPair(dy, x, propagateDown, bottom) {
		return
	}
	update := l.updateDW != nil && l.updatesParam(0)
	if update && l.writeDW && kernel.FCBackwardFused(m, n, k) {
		l.backwardFused(dy, x, propagateDown, bottom)
		l.biasGrad(dy)
		return
	}
	if update {
		l.dxAddLater = true
		l.inputGrad(dy, propagateDown, bottom)
		l.dxAddLater = false
		l.biasInRun = l.dxPending
	}
	if l.paramGrad(0) {
		beta := float32(1)
		if l.writeDW {
			beta = 0
		}
		var dw []float32
		if !update || beta != 0 {
			// The update path with beta 0 computes every block of the
			// gradient in a buffer and never touches the diff, which
			// the solver may leave deferred (defersParamDiff).
			dw = l.blobs[0].grad()
		}
		switch {
		case update:
			l.weightGradUpdate(dy, x, beta, dw)
		case l.transpose:
			l.sgemm(true, false, k, n, m, x, k, dy, n, beta, dw, n)
		default:
			l.fc(kernel.FCWeightGrad, true, n, k, m, dy, n, x, k, beta, dw, k)
		}
	}
	if !l.biasInRun {
		l.biasGrad(dy)
	}
	l.biasInRun = false
	if !update {
		l.inputGrad(dy, propagateDown, bottom)
	}
}

// biasGrad adds the output gradient's rows to the bias gradient, if it
// is computed.
func (l *InnerProduct) biasGrad(dy []float32) {
	if l.bias && l.paramGrad(1) {
		db := l.blobs[1].DiffSlice()
		for i := 0; i < l.m; i++ {
			kernel.Add(db, db, dy[i*l.n:(i+1)*l.n])
		}
	}
}

// backwardFused computes the input gradient and the weight gradient in
// one pass over the weights (kernel.FCBackward), updating each piece of
// the weights with updateDW as soon as its gradient is computed, in
// parts (blocks of columns of W) over the layer's threads: the weights
// are read from memory once, where the input gradient and then the
// update would read them in turn. The gradients are those of the other
// path, bit for bit, and the diff receives the update.
func (l *InnerProduct) backwardFused(dy, x []float32, propagateDown []bool, bottom []*Blob) {
	threads := l.threads()
	for len(l.fusedFns) < threads {
		w := len(l.fusedFns)
		l.fusedFns = append(l.fusedFns, func(row, col int, grad []float32) {
			lo := row*l.k + col
			l.updateDW(w, lo, lo+len(grad), grad)
		})
	}
	f := &l.fused
	*f = ipFused{dy: dy, x: x, parts: kernel.FCParts(threads, l.m, l.k, l.n), ahead: l.k}
	if len(propagateDown) > 0 && propagateDown[0] {
		f.dx = bottom[0].DiffSlice()
	}
	if f.parts <= 1 {
		l.fusedPart(0, 0)
	} else {
		l.runner.run(threads, f.parts, l.fusedFn)
	}
	*f = ipFused{}
}

// updateAhead reports (updateAheader) how far the next piece of the
// weights that the update function gets lies from the one at hand: while
// backwardFused runs, a row of W (kernel.FCBackward hands its update the
// rows of a tile in turn, and then those of the tile below), else 0.
func (l *InnerProduct) updateAhead() int { return l.fused.ahead }

// fusedPart computes part p of backwardFused on goroutine w.
func (l *InnerProduct) fusedPart(w, p int) {
	f := &l.fused
	kernel.FCBackward(f.parts, p, l.m, l.n, l.k, f.dy, f.x, l.blobs[0].DataSlice(), f.dx, l.fusedFns[w])
}

// backwardPair runs Backward as two parts side by side, the input
// gradient and the weight and bias gradients, when there are several
// threads and each product is too small to be split (LeNet's ip2), then
// updates the weights (updateDW) once both are done (the weights no larger
// than the block weightGradUpdate updates at once). It reports whether it
// ran.
func (l *InnerProduct) backwardPair(dy, x []float32, propagateDown []bool, bottom []*Blob) bool {
	if len(propagateDown) == 0 || !propagateDown[0] || !l.pairs() {
		return false
	}
	beta := float32(1)
	if l.writeDW {
		beta = 0
	}
	l.pair = ipPair{dy: dy, x: x, dx: bottom[0].DiffSlice(), dw: l.blobs[0].DiffSlice(), beta: beta}
	l.runner.run(l.threads(), 2, l.pairFn)
	l.pair = ipPair{}
	if l.updateDW != nil && l.updatesParam(0) {
		l.updateDW(0, 0, l.n*l.k, nil)
	}
	return true
}

// pairs reports whether Backward runs as backwardPair when it computes
// the input gradient.
func (l *InnerProduct) pairs() bool {
	m, n, k := l.m, l.n, l.k
	threads := l.threads()
	return threads >= 2 && runtime.GOMAXPROCS(0) >= 2 && !l.transpose && n*k <= fcUpdateBlock && l.paramGrad(0) &&
		kernel.FCParts(threads, m, k, n) <= 1 && kernel.FCParts(threads, n, k, m) <= 1
}

// pairPart computes part p of backwardPair: the input gradient (0) or the
// weight and bias gradients (1).
func (l *InnerProduct) pairPart(_, p int) {
	m, n, k := l.m, l.n, l.k
	g := &l.pair
	if m >= 2*pairImages {
		l.pairHalf(p)
		return
	}
	if p == 0 {
		kernel.FCInputGrad(1, 0, m, k, n, g.dy, n, l.blobs[0].DataSlice(), k, 0, g.dx, k)
		if r := l.dxReLU; r != nil {
			dx := g.dx[:m*k]
			kernel.ReluGrad(dx, dx, l.dxReLUY[:m*k], r.slope)
			l.dxReLUDone = true
		}
		return
	}
	kernel.FCWeightGrad(1, 0, n, k, m, g.dy, n, g.x, k, g.beta, g.dw, k)
	if l.bias && l.paramGrad(1) {
		db := l.blobs[1].DiffSlice()
		for i := 0; i < m; i++ {
			kernel.Add(db, db, g.dy[i*n:(i+1)*n])
		}
	}
}

// pairImages is the unit by which backwardPair's parts split the
// images and the weights' columns (pairHalf): 16 rows of the input
// gradient or 16 columns of the weight gradient.
const pairImages = 16

// pairHalf computes part p of backwardPair with a batch of at least
// 2·pairImages: each part the input gradient of its half of the images
// (whole units of pairImages), passed through the ReLU's gradient, and
// the weight gradient of its half of the columns (the bias gradient in
// part 1), where the other split computes every image's input gradient
// in one part and the whole weight gradient in the other, each reading
// every row of the bottom. The values are those of the whole products,
// each the same sum.
func (l *InnerProduct) pairHalf(p int) {
	m, n, k := l.m, l.n, l.k
	g := &l.pair
	lo, hi := span(p, 2, (m+pairImages-1)/pairImages)
	lo, hi = lo*pairImages, min(m, hi*pairImages)
	kernel.FCInputGrad(1, 0, hi-lo, k, n, g.dy[lo*n:], n, l.blobs[0].DataSlice(), k, 0, g.dx[lo*k:], k)
	if r := l.dxReLU; r != nil {
		dx := g.dx[lo*k : hi*k]
		kernel.ReluGrad(dx, dx, l.dxReLUY[lo*k:hi*k], r.slope)
		if p == 0 {
			l.dxReLUDone = true // read after the run, when both parts are done
		}
	}
	lo, hi = span(p, 2, (k+pairImages-1)/pairImages)
	lo, hi = lo*pairImages, min(k, hi*pairImages)
	kernel.FCWeightGrad(1, 0, n, hi-lo, m, g.dy, n, g.x[lo:], k, g.beta, g.dw[lo:], k)
	if p == 1 {
		l.biasGrad(g.dy)
	}
}

// inputGrad computes the bottom's gradient, if asked.
func (l *InnerProduct) inputGrad(dy []float32, propagateDown []bool, bottom []*Blob) {
	if len(propagateDown) == 0 || !propagateDown[0] {
		return
	}
	m, n, k := l.m, l.n, l.k
	w, dx := l.blobs[0].DataSlice(), bottom[0].DiffSlice()
	switch blocks, size := kernel.FCInputGradBlocks(m, k, n, k); {
	case l.transpose:
		l.sgemm(false, true, m, k, n, dy, n, w, n, 0, dx, k)
	case l.byDepthBlocks(blocks):
		l.inputGradBlocks(dy, dx, blocks, size)
	default:
		l.fc(kernel.FCInputGrad, false, m, k, n, dy, n, w, k, 0, dx, k)
	}
}

// fcDepthBuffers is the most floats of buffers that the input gradient
// takes to be computed by depth blocks.
const fcDepthBuffers = 1 << 20

// byDepthBlocks reports whether the input gradient (W stored [N, K]) is
// computed by its blocks of depth, blocks of them: with at least as many
// as threads and at most twice as many, on more than one processor, each
// goroutine then reads whole rows of W, the rows its share of the
// forward product and of the weight gradient reads too (LeNet's ip1 on two
// threads: 2 blocks of 250 rows), where the parts of columns all read
// every row. Each goroutine's rows of W thus stay in its core's cache
// from the forward product to the update. The blocks' sums cost a buffer
// each (but the first) and a pass adding them.
func (l *InnerProduct) byDepthBlocks(blocks int) bool {
	threads := l.threads()
	return threads > 1 && blocks >= threads && blocks <= 2*threads && runtime.GOMAXPROCS(0) > 1 &&
		kernel.FCParts(threads, l.m, l.k, l.n) > 1 && (blocks-1)*l.m*l.k <= fcDepthBuffers
}

// inputGradBlocks computes dx = dy·W by blocks of depth (rows of W), a
// block per part, the first into dx, the others into buffers, then adds
// the buffers to dx in block order: the bits of the whole product
// (kernel.FCInputGradBlocks).
func (l *InnerProduct) inputGradBlocks(dy, dx []float32, blocks, size int) {
	mk := l.m * l.k
	for len(l.dxBufs) < blocks-1 {
		l.dxBufs = append(l.dxBufs, nil)
	}
	for b := range blocks - 1 {
		l.dxBufs[b] = growFloats(l.dxBufs[b], mk)
	}
	l.dxBlocks, l.dxSize, l.dxDY, l.dxOut = blocks, size, dy, dx[:mk]
	if l.dxAddLater && l.paramGrad(0) && layerParamWork {
		// The blocks run in weightGradUpdate's run, which adds the
		// buffers.
		l.dxPending = true
		return
	}
	l.runner.run(l.threads(), blocks, l.dxFn)
	l.dxDY = nil
	if l.dxAddLater {
		return // weightGradUpdate adds the buffers
	}
	l.runner.run(l.threads(), l.threads(), l.dxAddFn)
	l.dxOut = nil
}

// inputGradBlock computes block p of inputGradBlocks.
func (l *InnerProduct) inputGradBlock(_, p int) {
	m, n, k := l.m, l.n, l.k
	lo, hi := p*l.dxSize, min(n, (p+1)*l.dxSize)
	c := l.dxOut
	if p > 0 {
		c = l.dxBufs[p-1][:m*k]
	}
	kernel.FCInputGrad(1, 0, m, k, hi-lo, l.dxDY[lo:], n, l.blobs[0].DataSlice()[lo*k:], k, 0, c, k)
}

// inputGradAdd adds the buffers of inputGradBlocks to part p of the
// threads' shares of dx, in block order.
func (l *InnerProduct) inputGradAdd(_, p int) { l.addDepthBlocks(p, l.threads()) }

// addDepthBlocks adds the buffers of inputGradBlocks to part p of parts
// of dx, in block order.
func (l *InnerProduct) addDepthBlocks(p, parts int) {
	lo, hi := span(p, parts, len(l.dxOut))
	lo, hi = lo&^15, hi&^15
	if p == parts-1 {
		hi = len(l.dxOut)
	}
	dx := l.dxOut[lo:hi]
	for _, buf := range l.dxBufs[:l.dxBlocks-1] {
		kernel.Add(dx, dx, buf[lo:hi])
	}
}

// weightGradUpdate computes the weight gradient in blocks of rows (parts
// of kernel.FCWeightGrad, which give the whole product's values) and has
// l.updateDW update each block's weights right after it, on the same
// goroutine.
func (l *InnerProduct) weightGradUpdate(dy, x []float32, beta float32, dw []float32) {
	m, n, k := l.m, l.n, l.k
	threads := l.threads()
	parts := kernel.FCParts(threads, n, k, m)
	if want := (n*k + fcUpdateBlock - 1) / fcUpdateBlock; want > parts {
		parts = min(0xffff, (want+threads-1)/threads*threads)
	}
	parts = fcRowParts(parts, n, threads)
	if beta == 0 {
		// A buffer for the most rows a part has.
		rows := 0
		for p := range parts {
			lo, hi := kernel.FCWeightGradRows(parts, p, n, k, m)
			rows = max(rows, hi-lo)
		}
		for len(l.dwBufs) < threads {
			l.dwBufs = append(l.dwBufs, nil)
		}
		for w := range threads {
			l.dwBufs[w] = growFloats(l.dwBufs[w], rows*k)
		}
	}
	l.gemm = ipGemm{fc: kernel.FCWeightGrad, parts: parts, m: n, n: k, k: m, a: dy, b: x, c: dw, lda: n, ldb: k, ldc: k, beta: beta, update: true}
	if l.dxPending {
		l.weightGradWithBlocks(threads, parts)
	} else {
		l.runner.run(threads, parts, l.gemmFn)
	}
	l.gemm = ipGemm{}
	l.dxOut, l.dxDY = nil, nil
}

// The states of a task that goroutines of a run may wait for and run
// themselves if none has begun it (the input gradient's blocks run with
// the weight gradient, dxState; the forward products run with the
// transposition by images, prodState).
const (
	taskTodo int32 = iota
	taskRunning
	taskDone
)

// weightGradWithBlocks runs the input gradient's depth blocks and the
// weight gradient's parts of l.gemm as one run, instead of a run of the
// blocks and then one of the weight gradient, which would wait for the
// slower goroutine twice. Each goroutine's share starts with its blocks
// (the rows of W its share of the forward product read), then has its
// parts of the weight gradient, whose rows follow the blocks'. A weight
// gradient part computes its rows' gradient, then waits for every block
// (running one that no goroutine has begun) before it adds the blocks'
// sums to its range of the input gradient and updates its rows of the
// weights, which the blocks read: the values of the two runs, bit for
// bit.
func (l *InnerProduct) weightGradWithBlocks(threads, parts int) {
	blocks := l.dxBlocks
	l.dxState = growStates(l.dxState, blocks)
	for b := range blocks {
		l.dxState[b].Store(taskTodo)
	}
	if ipWholeShares && ipBalanceRows && threads > 1 {
		l.weightGradSplitRun(threads, parts)
		l.dxPending = false
		return
	}
	l.wgTask = dealTasks(l.wgTask, &l.wgShares, threads, blocks, parts)
	if ipWholeShares && threads > 1 {
		l.runner.run(threads, len(l.wgShares)-1, l.wgShareFn)
	} else {
		l.runner.run(threads, blocks+parts, l.wgFn)
	}
	l.dxPending = false
}

// ipWholeShares runs each goroutine's share of weightGradWithBlocks as one
// part, so that a goroutine done first does not take the last weight
// gradient part of a share the other goroutine has begun: on the other
// core, whose cache holds none of its rows, such a part took about twice
// as long.
var ipWholeShares = true

// weightGradShare runs share sh of weightGradWithBlocks's tasks on
// goroutine w.
func (l *InnerProduct) weightGradShare(w, sh int) {
	for q := l.wgShares[sh]; q < l.wgShares[sh+1]; q++ {
		l.weightGradTask(w, q)
	}
}

// weightGradTask runs part q of weightGradWithBlocks on goroutine w.
func (l *InnerProduct) weightGradTask(w, q int) {
	if t := l.wgTask[q]; t >= 0 {
		runTask(&l.dxState[t], w, t, l.blockFn)
		return
	}
	l.gemmPart(w, -l.wgTask[q]-1)
}

// inputBlockTask computes block b of the input gradient and, with the
// last block, the bias gradient (weightGradWithBlocks).
func (l *InnerProduct) inputBlockTask(w, b int) {
	switch {
	case b >= topState:
		l.topTask(w, b-topState)
		return
	case l.dxCross:
		l.crossTask(w, b)
		return
	}
	l.inputGradBlock(0, b)
	if b == l.dxBlocks-1 && l.biasInRun {
		l.biasGrad(l.gemm.a)
	}
}

// dealTasks returns the tasks of a run of groups of tasks (counts[g] in
// group g), dealt into as many shares as threads allow (cut by span, as
// the runner cuts a run's parts): each share holds its span of each group
// in turn, task p of the first group as p and task p of a later group as
// −(the tasks of the later groups before it)−p−1, so that the later
// groups number on from each other (the first's tasks are those others
// wait for). When starts is not nil, it receives each share's first
// task's index and, last, the number of tasks. tasks and *starts are
// reused.
func dealTasks(tasks []int, starts *[]int, threads int, counts ...int) []int {
	total := 0
	for _, n := range counts {
		total += n
	}
	shares := min(threads, total)
	tasks = tasks[:0]
	if starts != nil {
		*starts = (*starts)[:0]
	}
	for sh := range shares {
		if starts != nil {
			*starts = append(*starts, len(tasks))
		}
		base := 0
		for g, n := range counts {
			lo, hi := span(sh, shares, n)
			for p := lo; p < hi; p++ {
				if g == 0 {
					tasks = append(tasks, p)
				} else {
					tasks = append(tasks, -base-p-1)
				}
			}
			if g > 0 {
				base += n
			}
		}
	}
	if starts != nil {
		*starts = append(*starts, len(tasks))
	}
	return tasks
}

// runTask runs fn(w, i), task i of state st, on goroutine w unless a
// goroutine has begun it.
func runTask(st *atomic.Int32, w, i int, fn func(w, i int)) {
	if !st.CompareAndSwap(taskTodo, taskRunning) {
		return
	}
	defer st.Store(taskDone) // even on a panic, which the run re-raises
	fn(w, i)
}

// finishTask returns once the task of st is done, running it (fn(w, i))
// on goroutine w if no goroutine has begun it.
func finishTask(st *atomic.Int32, w, i int, fn func(w, i int)) {
	runTask(st, w, i, fn)
	for st.Load() != taskDone {
		kernel.SpinYield()
	}
}

// finishTasks returns once every task of states is done, running on
// goroutine w those that no goroutine has begun (fn(w, i) runs task i).
func finishTasks(w int, states []atomic.Int32, fn func(w, i int)) {
	for i := range states {
		runTask(&states[i], w, i, fn)
	}
	for i := range states {
		for states[i].Load() != taskDone {
			kernel.SpinYield()
		}
	}
}
