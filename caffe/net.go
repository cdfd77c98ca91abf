package caffe

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// NetOptions configures a net. The zero value builds the state the
// definition asks for, with all cores and seed 0.
type NetOptions struct {
	// State selects the layers to build (phase, level, stages). Nil uses
	// the definition's own state (phase TEST unless it says otherwise).
	State *NetState
	// Threads is how many goroutines each layer's kernels may use; 0 means
	// GOMAXPROCS. A worker that runs one net per core uses 1.
	Threads int
	// Seed seeds the fillers and any other random numbers of the layers;
	// each layer draws from its own stream derived from Seed and its name.
	Seed uint64
	// Dir is the folder relative paths in the definition (data sources,
	// mean files) are resolved against; "" means the working directory.
	Dir string
}

// Net is a Caffe net built from a definition: its layers, the blobs that
// connect them, and their parameters. Forward computes the outputs and the
// loss, Backward the gradients, which the solvers apply.
//
// A Net is not safe for concurrent use; give every goroutine its own.
type Net struct {
	def  *NetDef
	opts NetOptions

	layers  []Layer
	bottoms [][]*Blob
	tops    [][]*Blob
	// bottomShapes holds each layer's bottom shapes at its last Reshape, to
	// notice when they change.
	bottomShapes [][][]int

	blobs       []*Blob
	blobNames   []string
	blobIndex   map[string]int
	layerByName map[string]int

	lossTops           []lossTop
	layerNeedBackward  []bool
	bottomNeedBackward [][]bool

	params    []*Blob // by NetDef.Params index
	learnable []*Blob // by NetDef.Learnable index

	inputs []netInput // set by LoadNet: the inputs and their transforms

	fusions []*convFusion // by first layer: the groups run as one pass (net_fuse.go)
	feed    pieceFeed     // a batch fed in pieces (net_feed.go)
	// ipReLUs[i]: the in-place ReLU of inner product i's top right after
	// it, which the forward pass runs with it (net_fuse.go), or nil;
	// bwdReLUs[i]: the in-place ReLU right before inner product i of
	// its bottom, which the backward pass runs with it, or nil.
	ipReLUs, bwdReLUs []*ReLU
	preps             passPreps // work done ahead of the passes (net_prep.go)
	// backwardNext: a backward pass follows the forward pass with the
	// weights unchanged (a solver's iteration), for which the forward
	// pass begins the work ahead in early (net_prep.go); earlyRunning
	// while it is begun and not handed to the backward pass, earlyWait
	// the layer before which that waits; earlyAt the layer at which the
	// forward pass begins it (earlyStart), earlyUnknown until worked out.
	backwardNext, earlyRunning bool
	early                      passPreps
	earlyWait, earlyAt         int
	// lrnPools: by the LRN's layer, the LRN–pooling pairs run as one
	// pass (net_fuse_lrn.go).
	lrnPools []*lrnPool
	// skipUnread: the fused groups leave the tops that no layer reads
	// unwritten (SetKeepTops).
	skipUnread bool
}

type lossTop struct {
	blob   *Blob
	weight float32
}

// NewNet builds the net np defines. Layers whose definitions carry blobs
// (a .caffemodel read as a definition) start from those values; the others
// are filled as their fillers say.
func NewNet(np *caffepb.NetParameter, opts NetOptions) (*Net, error) {
	state := NetStateOf(np)
	if opts.State != nil {
		state = *opts.State
	}
	def, err := ProcessNet(np, state)
	if err != nil {
		return nil, err
	}
	return newNetFromDef(def, opts)
}

// NewNetFromDef builds a net from a definition ProcessNet made; opts.State
// is not used (the definition was processed for its state).
func NewNetFromDef(def *NetDef, opts NetOptions) (*Net, error) { return newNetFromDef(def, opts) }

func newNetFromDef(def *NetDef, opts NetOptions) (n *Net, err error) {
	if opts.Threads <= 0 {
		opts.Threads = runtime.GOMAXPROCS(0)
	}
	n = &Net{
		def:         def,
		opts:        opts,
		blobIndex:   map[string]int{},
		layerByName: map[string]int{},
		earlyAt:     earlyUnknown,
	}
	for _, ld := range def.Layers {
		if _, dup := n.layerByName[ld.Name]; !dup {
			n.layerByName[ld.Name] = ld.Index
		}
		if err := n.appendLayer(ld); err != nil {
			return nil, err
		}
	}
	// Layers of a type without a shape rule tell how many parameter
	// blobs they have once they are set up.
	counts := make([]int, len(def.Layers))
	for i, ld := range def.Layers {
		counts[i] = len(ld.Params)
		if !ld.ParamsKnown {
			counts[i] = len(n.layers[i].Params())
		}
	}
	if n.def, err = def.withParamCounts(counts); err != nil {
		return nil, err
	}
	n.params = make([]*Blob, len(n.def.Params))
	paramLayerNames := map[string]bool{}
	for i, ld := range n.def.Layers {
		if len(ld.Params) > 0 {
			if paramLayerNames[ld.Name] {
				return nil, ld.errorf("another layer with parameters has the same name; weights are kept by layer name, so rename one")
			}
			paramLayerNames[ld.Name] = true
		}
		if err := n.wireParams(i); err != nil {
			return nil, err
		}
	}
	n.learnable = make([]*Blob, len(n.def.Learnable))
	for i, p := range n.def.Learnable {
		n.learnable[i] = n.params[p]
	}
	n.analyseBackward()
	n.findFusions()
	n.findLRNPools()
	return n, nil
}

// layerSeed derives a layer's seed from the net's seed and the layer's
// name, so that a layer gets the same initial weights in every net that
// has it (the train net and a deploy net, say).
func layerSeed(seed uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	z := seed ^ h.Sum64()
	// splitmix64 finaliser
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// appendLayer makes a layer, wires its blobs and sets it up.
func (n *Net) appendLayer(ld *LayerDef) (err error) {
	env := &LayerEnv{
		Phase:   ld.Param.GetPhase(),
		Seed:    layerSeed(n.opts.Seed, ld.Name),
		Threads: n.opts.Threads,
		Dir:     n.opts.Dir,
	}
	var layer Layer
	err = safeLayerCall(ld, func() (err error) {
		layer, err = NewLayer(ld.Param, env)
		return err
	})
	if err != nil {
		return wrapLayerPos(ld, err)
	}
	bottoms := make([]*Blob, len(ld.Bottoms))
	for j, name := range ld.Bottoms {
		id, ok := n.blobIndex[name]
		if !ok {
			return ld.errorf("unknown bottom blob %q", name)
		}
		bottoms[j] = n.blobs[id]
	}
	tops := make([]*Blob, len(ld.Tops))
	for j, name := range ld.Tops {
		if j < len(ld.Bottoms) && ld.Bottoms[j] == name {
			tops[j] = bottoms[j] // in place
			continue
		}
		b := &Blob{}
		n.blobIndex[name] = len(n.blobs)
		n.blobs = append(n.blobs, b)
		n.blobNames = append(n.blobNames, name)
		tops[j] = b
	}
	if err := safeLayerCall(ld, func() error { return layer.Setup(bottoms, tops) }); err != nil {
		return wrapLayerPos(ld, err)
	}
	n.layers = append(n.layers, layer)
	n.bottoms = append(n.bottoms, bottoms)
	n.tops = append(n.tops, tops)
	n.bottomShapes = append(n.bottomShapes, recordShapes(nil, bottoms))

	return nil
}

// wireParams checks layer i's parameter blobs against its definition,
// shares the named ones and notes the gradients that are not needed.
func (n *Net) wireParams(i int) error {
	ld, layer := n.def.Layers[i], n.layers[i]
	blobs := layer.Params()
	if len(blobs) != len(ld.Params) {
		return ld.errorf("the layer made %d parameter blobs, the definition expects %d", len(blobs), len(ld.Params))
	}
	for j, pid := range ld.Params {
		pd := n.def.Params[pid]
		b := blobs[j]
		if b == nil {
			return ld.errorf("parameter blob %d is nil", j)
		}
		if pd.Owner >= 0 {
			owner := n.params[pd.Owner]
			od := n.def.Params[pd.Owner]
			ownerLayer := n.def.Layers[od.Layer].Name
			if pd.ShareMode == caffepb.ParamSpec_PERMISSIVE {
				if b.Count() != owner.Count() {
					return ld.errorf("cannot share param %q (blob %d) with layer %q: count %d vs %d (PERMISSIVE sharing needs equal counts)",
						pd.Name, j, ownerLayer, b.Count(), owner.Count())
				}
			} else if !slices.Equal(b.shape, owner.shape) {
				return ld.errorf("cannot share param %q (blob %d) with layer %q: shape %v vs %v (use share_mode: PERMISSIVE to share equal counts)",
					pd.Name, j, ownerLayer, b.shape, owner.shape)
			}
			b.ShareData(owner)
			b.ShareDiff(owner)
		}
		n.params[pid] = b
		if pp, ok := layer.(ParamPropagation); ok && pd.LrMult == 0 {
			pp.SetParamPropagateDown(j, false)
		}
	}
	for j, w := range ld.LossWeights {
		if w != 0 {
			n.lossTops = append(n.lossTops, lossTop{blob: n.tops[i][j], weight: w})
		}
	}
	return nil
}

// wrapLayerPos adds the definition's position to an error about a layer.
func wrapLayerPos(ld *LayerDef, err error) error {
	if !ld.Pos.IsValid() {
		return err
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	return &layerPosError{pos: ld.Pos, err: err}
}

// layerPosError is an error about a layer with where it was defined.
type layerPosError struct {
	pos Position
	err error
}

func (e *layerPosError) Error() string {
	return "caffe: " + e.pos.String() + ": " + strings.TrimPrefix(e.err.Error(), "caffe: ")
}

func (e *layerPosError) Unwrap() error { return e.err }

// safeLayerCall runs f, turning a panic inside the layer into an error
// naming the layer.
func safeLayerCall(ld *LayerDef, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(ld, r)
		}
	}()
	return f()
}

// recordShapes copies the blobs' shapes into dst, reusing its storage.
func recordShapes(dst [][]int, blobs []*Blob) [][]int {
	if len(dst) != len(blobs) {
		dst = make([][]int, len(blobs))
	}
	for i, b := range blobs {
		dst[i] = append(dst[i][:0], b.shape...)
	}
	return dst
}

func shapesChanged(recorded [][]int, blobs []*Blob) bool {
	for i, b := range blobs {
		if !slices.Equal(recorded[i], b.shape) {
			return true
		}
	}
	return false
}

// analyseBackward decides which layers run Backward and for which
// bottoms, as Caffe's Net::Init does: a layer needs backward if a bottom
// or a parameter needs a gradient and one of its tops leads to the loss;
// propagate_down and force_backward override.
func (n *Net) analyseBackward() {
	nl := len(n.layers)
	n.layerNeedBackward = make([]bool, nl)
	n.bottomNeedBackward = make([][]bool, nl)
	blobNeed := make([]bool, len(n.blobs))
	for i, ld := range n.def.Layers {
		need := false
		bnb := make([]bool, len(ld.Bottoms))
		for j, name := range ld.Bottoms {
			id := n.blobIndex[name]
			bnb[j] = blobNeed[id]
			if pd := ld.Param.GetPropagateDown(); len(pd) > 0 {
				bnb[j] = pd[j]
			}
			need = need || blobNeed[id]
		}
		for _, pid := range ld.Params {
			need = need || n.def.Params[pid].LrMult != 0
		}
		n.layerNeedBackward[i] = need
		n.bottomNeedBackward[i] = bnb
		if need {
			for _, name := range ld.Tops {
				blobNeed[n.blobIndex[name]] = true
			}
		}
	}
	underLoss := map[string]bool{}
	skipBackprop := map[string]bool{}
	for i := nl - 1; i >= 0; i-- {
		ld := n.def.Layers[i]
		contributes, skip := false, true
		for j, name := range ld.Tops {
			if ld.LossWeights[j] != 0 || underLoss[name] {
				contributes = true
			}
			if !skipBackprop[name] {
				skip = false
			}
		}
		if n.layerNeedBackward[i] && skip {
			n.layerNeedBackward[i] = false
			clear(n.bottomNeedBackward[i])
		}
		if !contributes {
			n.layerNeedBackward[i] = false
		}
		for j, name := range ld.Bottoms {
			if contributes {
				underLoss[name] = true
			} else {
				n.bottomNeedBackward[i][j] = false
			}
			if !n.bottomNeedBackward[i][j] {
				skipBackprop[name] = true
			}
		}
	}
	if n.def.ForceBackward {
		for i, ld := range n.def.Layers {
			n.layerNeedBackward[i] = true
			limiter, _ := n.layers[i].(ForceBackwardLimiter)
			for j := range ld.Bottoms {
				allow := !ld.typ.Loss || j != 1
				if limiter != nil {
					allow = limiter.AllowForceBackward(j)
				}
				n.bottomNeedBackward[i][j] = n.bottomNeedBackward[i][j] || allow
			}
		}
	}
}

// Name returns the net's name.
func (n *Net) Name() string { return n.def.Name }

// Def returns the processed definition the net was built from.
func (n *Net) Def() *NetDef { return n.def }

// Phase returns the phase the net was built for.
func (n *Net) Phase() Phase { return n.def.State.Phase }

// Threads returns the number of goroutines the layers may use.
func (n *Net) Threads() int { return n.opts.Threads }

// NumLayers returns the number of layers (Split layers included).
func (n *Net) NumLayers() int { return len(n.layers) }

// LayerNames returns the layer names in order.
func (n *Net) LayerNames() []string {
	names := make([]string, len(n.def.Layers))
	for i, l := range n.def.Layers {
		names[i] = l.Name
	}
	return names
}

// Layer returns the first layer called name, or nil.
func (n *Net) Layer(name string) Layer {
	if i, ok := n.layerByName[name]; ok {
		return n.layers[i]
	}
	return nil
}

// LayerAt returns layer i.
func (n *Net) LayerAt(i int) Layer { return n.layers[i] }

// BlobNames returns the names of the net's blobs in order of creation.
func (n *Net) BlobNames() []string { return slices.Clone(n.blobNames) }

// Blob returns the blob called name, or nil. Its values may be read and
// written; an input blob may also be reshaped, and the layers after it
// reshape at the next Forward.
func (n *Net) Blob(name string) *Blob {
	if i, ok := n.blobIndex[name]; ok {
		return n.blobs[i]
	}
	return nil
}

// Inputs returns the names of the net's input blobs (the tops of Input
// layers).
func (n *Net) Inputs() []string { return slices.Clone(n.def.Inputs) }

// Outputs returns the names of the blobs no layer reads, sorted.
func (n *Net) Outputs() []string { return slices.Clone(n.def.Outputs) }

// Params returns the parameter blobs of the first layer called name (nil
// if there is none); they share storage with the net.
func (n *Net) Params(layer string) []*Blob {
	if i, ok := n.layerByName[layer]; ok {
		return n.layerParams(i)
	}
	return nil
}

func (n *Net) layerParams(i int) []*Blob {
	ld := n.def.Layers[i]
	out := make([]*Blob, len(ld.Params))
	for j, pid := range ld.Params {
		out[j] = n.params[pid]
	}
	return out
}

// LearnableParams returns the parameter blobs that own their storage, in
// Caffe's learnable_params order (shared parameters once, at their first
// layer).
func (n *Net) LearnableParams() []*Blob { return slices.Clone(n.learnable) }

// NumLearnableValues returns the number of values in the learnable
// parameters.
func (n *Net) NumLearnableValues() int {
	s := 0
	for _, b := range n.learnable {
		s += b.Count()
	}
	return s
}

// Reshape reshapes every layer for the current input shapes. Forward
// reshapes the layers whose input shapes changed by itself; Reshape is for
// reading the new output shapes before running.
func (n *Net) Reshape() (err error) {
	for i := range n.layers {
		if err := n.reshapeLayer(i); err != nil {
			return err
		}
	}
	return nil
}

func (n *Net) reshapeLayer(i int) error {
	ld := n.def.Layers[i]
	if err := safeLayerCall(ld, func() error { return n.layers[i].Reshape(n.bottoms[i], n.tops[i]) }); err != nil {
		return err
	}
	n.bottomShapes[i] = recordShapes(n.bottomShapes[i], n.bottoms[i])
	n.earlyAt = earlyUnknown
	return nil
}

// Forward runs every layer and returns the loss: the sum over the tops
// with a loss weight of weight × (sum of the top's values).
//
// A convolution, an in-place ReLU and a pooling of its output run as one
// pass, a block of images at a time, with the same results (net_fuse.go),
// as do a cross-channel LRN and the pooling of its output, an image at a
// time (net_fuse_lrn.go).
func (n *Net) Forward() (float32, error) {
	beginPass()
	defer endPass()
	var loss float32
	if parStats {
		defer statsSegment(0, "")
	}
	wait := n.startPreps(false)
	if wait >= 0 {
		defer n.endPreps()
	}
	// Work ahead that an earlier forward pass began for a backward pass
	// that did not follow is dropped (the weights may have changed).
	n.dropEarlyPreps()
	early := false
	for i := 0; i < len(n.layers); i++ {
		if parStats {
			statsSegment('F', n.def.Layers[i].Name)
		}
		if wait >= 0 && i >= wait {
			n.waitPreps()
			wait = -1
		}
		if n.backwardNext && earlyPreps && wait < 0 && !early {
			// (At the first layer the pass runs at or after it: a
			// fused run may take in the layer it names.)
			if at := n.earlyStart(); at >= 0 && i >= at {
				n.startEarlyPreps()
				early = true
			}
		}
		if f := n.fusions[i]; f != nil {
			if g := n.chainNext(f); g != nil {
				chained, err := n.forwardChain(f, g)
				if err != nil {
					return 0, err
				}
				i = f.last
				if chained {
					i = g.last
				}
				continue
			}
			if err := n.forwardFused(f); err != nil {
				return 0, err
			}
			i = f.last
			continue
		}
		if r := n.ipReLUs[i]; r != nil && fuseLayers {
			next, err := n.forwardIPReLU(i, r)
			if err != nil {
				return 0, err
			}
			i++
			if next {
				i++
			}
			continue
		}
		if f := n.lrnPools[i]; f != nil {
			if err := n.forwardLRNPool(f); err != nil {
				return 0, err
			}
			i++
			continue
		}
		if ran, last, err := n.forwardFed(i, wait); err != nil {
			return 0, err
		} else if ran {
			if wait >= 0 && wait <= last {
				wait = -1 // (waited for within the run)
			}
			i = last
			continue
		}
		l, err := n.ForwardLayer(i)
		if err != nil {
			return 0, err
		}
		loss += l
	}
	return loss, nil
}

// ForwardLayer runs layer i alone (reshaping it first if its inputs
// changed shape) and returns its contribution to the loss.
func (n *Net) ForwardLayer(i int) (loss float32, err error) {
	if shapesChanged(n.bottomShapes[i], n.bottoms[i]) {
		if err := n.reshapeLayer(i); err != nil {
			return 0, err
		}
	}
	ld := n.def.Layers[i]
	defer func() {
		if r := recover(); r != nil {
			err = panicError(ld, r)
		}
	}()
	if err := n.layers[i].Forward(n.bottoms[i], n.tops[i]); err != nil {
		return 0, err
	}
	for j, w := range ld.LossWeights {
		if w == 0 {
			continue
		}
		// The top's diff holds its loss weight: the gradient of the loss
		// with respect to the top, which the layer's Backward reads.
		t := n.tops[i][j]
		diff := t.DiffSlice()
		for k := range diff {
			diff[k] = w
		}
		loss += kernel.Dot(t.DataSlice(), diff)
	}
	return loss, nil
}

// panicError turns a panic inside layer ld into an error naming it.
func panicError(ld *LayerDef, r any) error {
	var se *shapeError
	if e, ok := r.(error); ok && errors.As(e, &se) {
		// A checked limit, not a fault: say it plainly.
		return fmt.Errorf("caffe: layer %q (%s): %s", ld.Name, ld.Type, se.msg)
	}
	if e, ok := r.(error); ok {
		return fmt.Errorf("caffe: layer %q (%s): panic: %w", ld.Name, ld.Type, e)
	}
	return fmt.Errorf("caffe: layer %q (%s): panic: %v", ld.Name, ld.Type, r)
}

// Backward runs Backward for every layer that leads to the loss, last to
// first, leaving the parameters' gradients in their diffs (added to what
// they held: ClearParamDiffs starts afresh).
func (n *Net) Backward() error { return n.backwardWith(nil) }

// backwardHooks are called around each step of a backward pass: a layer,
// or a fused group of layers [first, last].
type backwardHooks interface {
	beforeBackward(first, last int)
	afterBackward(first, last int)
}

// backwardWith is Backward, calling h (if not nil) before and after each
// layer or fused group.
func (n *Net) backwardWith(h backwardHooks) error {
	beginPass()
	defer endPass()
	if parStats {
		defer statsSegment(0, "")
	}
	wait, preps, early := n.takeEarlyPreps()
	if early {
		defer n.endPrepsOn(preps)
	} else {
		preps = &n.preps
		wait = n.startPreps(true)
		if wait >= 0 {
			defer n.endPreps()
		}
	}
	for i := len(n.layers) - 1; i >= 0; i-- {
		first := i
		f := n.fusionEndingAt(i)
		var gr *ReLU
		var low *InnerProduct // the inner product whose run takes gr's group (ipTopBelow)
		lp := n.lrnPoolEndingAt(i)
		var lpConv *convFusion // the group whose backward runs lp's
		if f != nil {
			first = f.first
		} else if lp != nil {
			first = lp.first
			if lpConv = n.chainedConv(lp); lpConv != nil {
				first = lpConv.first
			}
		} else if gr = n.gradReLU(i); gr != nil {
			first = i - 1
			if low = n.ipTopBelow(i); low != nil {
				first = i - 2
			}
		}
		if wait >= 0 && first <= wait {
			preps.runner.finish()
			wait = -1
		}
		if f != nil {
			if g := n.chainPrev(f); g != nil && n.backwardChains(f, g) {
				if wait >= 0 && g.first <= wait {
					preps.runner.finish()
					wait = -1
				}
				if h != nil {
					if parStats {
						statsSegment('c', n.def.Layers[first].Name)
					}
					h.beforeBackward(first, i)
					h.beforeBackward(g.first, g.last)
				}
				if parStats {
					statsSegment('B', n.def.Layers[first].Name)
				}
				if err := n.backwardChain(f, g); err != nil {
					return err
				}
				if h != nil {
					if parStats {
						statsSegment('u', n.def.Layers[first].Name)
					}
					h.afterBackward(first, i)
					h.afterBackward(g.first, g.last)
				}
				i = g.first
				continue
			}
		}
		if h != nil {
			if parStats {
				statsSegment('c', n.def.Layers[first].Name)
			}
			h.beforeBackward(first, i)
		}
		if parStats {
			statsSegment('B', n.def.Layers[first].Name)
		}
		var err error
		switch {
		case f != nil:
			err = n.backwardFused(f)
		case low != nil:
			err = n.backwardIPTop(i, gr, low)
		case gr != nil:
			err = n.backwardIPReLU(i, gr)
		case lpConv != nil:
			err = n.backwardLRNChain(lp, lpConv)
		case lp != nil:
			err = n.backwardLRNPool(lp)
		default:
			err = n.BackwardLayer(i)
		}
		if err != nil {
			return err
		}
		if h != nil {
			if parStats {
				statsSegment('u', n.def.Layers[first].Name)
			}
			h.afterBackward(first, i)
		}
		i = first
	}
	return nil
}

// BackwardLayer runs Backward for layer i if it leads to the loss.
func (n *Net) BackwardLayer(i int) (err error) {
	if !n.layerNeedBackward[i] {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = panicError(n.def.Layers[i], r)
		}
	}()
	n.layers[i].Backward(n.tops[i], n.bottomNeedBackward[i], n.bottoms[i])
	return nil
}

// NeedsBackward reports whether layer i runs in Backward.
func (n *Net) NeedsBackward(i int) bool { return n.layerNeedBackward[i] }

// ForwardBackward runs Forward then Backward and returns the loss.
func (n *Net) ForwardBackward() (float32, error) {
	loss, err := n.Forward()
	if err != nil {
		return 0, err
	}
	return loss, n.Backward()
}

// ClearParamDiffs sets the gradients of all parameters to zero.
func (n *Net) ClearParamDiffs() {
	for _, b := range n.learnable {
		b.ZeroDiff()
	}
}

// Update subtracts every learnable parameter's diff from its values (the
// last step of a solver iteration).
func (n *Net) Update() {
	for _, b := range n.learnable {
		kernel.Axpy(-1, b.grad(), b.DataSlice())
	}
}

// firstNonFinite returns the first layer top (in net order) holding a NaN
// or an infinity, for divergence reports.
func (n *Net) firstNonFinite() (layer, top string, ok bool) {
	for i, ld := range n.def.Layers {
		for j, t := range n.tops[i] {
			for _, v := range t.DataSlice() {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return ld.Name, ld.Tops[j], true
				}
			}
		}
	}
	return "", "", false
}

// Weights returns the learnable parameters as a collection keyed by layer
// name, in net order: for each layer with parameters that own their
// storage (shared parameters appear once, with their first layer), its
// blobs in Caffe's order (weights, then bias). The arrays are views of the
// net's parameter blobs, not copies: they change as the net trains, and
// writing to them changes the net. Clone the collection to keep a copy.
func (n *Net) Weights() *ndarray.WeightCollection {
	return n.paramCollection(func(b *Blob, _ int) *ndarray.Array { return b.Data() })
}

// paramCollection builds a collection over the owned parameters of each
// layer, with view(b, k) giving the arrays of learnable parameter k.
func (n *Net) paramCollection(view func(b *Blob, k int) *ndarray.Array) *ndarray.WeightCollection {
	wc := ndarray.NewWeightCollection()
	for _, ld := range n.def.Layers {
		var arrs []*ndarray.Array
		for _, pid := range ld.Params {
			if pd := n.def.Params[pid]; pd.Owner < 0 {
				arrs = append(arrs, view(n.params[pid], pd.Learnable))
			}
		}
		if len(arrs) > 0 {
			wc.Set(ld.Name, arrs...)
		}
	}
	return wc
}

// SetWeights copies values into the learnable parameters. wc must hold
// exactly the layers Weights returns, with arrays of the same shapes;
// otherwise nothing is copied and the error names the first layer that
// differs.
func (n *Net) SetWeights(wc *ndarray.WeightCollection) error {
	return n.setParamCollection(wc, "weights", func(b *Blob, _ int) []float32 { return b.DataSlice() })
}

func (n *Net) setParamCollection(wc *ndarray.WeightCollection, what string, dst func(b *Blob, k int) []float32) error {
	if wc == nil {
		return fmt.Errorf("caffe: Set%s: nil collection", what)
	}
	want := n.Weights()
	for _, name := range want.Layers() {
		got := wc.Get(name)
		if !wc.Has(name) {
			return fmt.Errorf("caffe: %s: layer %q is missing (the net's layers with parameters: %s)", what, name, format.SortedList(want.Layers()))
		}
		w := want.Get(name)
		if len(got) != len(w) {
			return fmt.Errorf("caffe: %s: layer %q has %d arrays, the net has %d", what, name, len(got), len(w))
		}
		for j := range w {
			if got[j] == nil || !slices.Equal(got[j].Shape(), w[j].Shape()) {
				var shape []int
				if got[j] != nil {
					shape = got[j].Shape()
				}
				return fmt.Errorf("caffe: %s: layer %q array %d has shape %v, the net has %v", what, name, j, shape, w[j].Shape())
			}
		}
	}
	for _, name := range wc.Layers() {
		if !want.Has(name) {
			return fmt.Errorf("caffe: %s: layer %q is not a layer of net %q with parameters (those are: %s)", what, name, n.def.Name, format.SortedList(want.Layers()))
		}
	}
	for _, ld := range n.def.Layers {
		src := wc.Get(ld.Name)
		j := 0
		for _, pid := range ld.Params {
			pd := n.def.Params[pid]
			if pd.Owner >= 0 {
				continue
			}
			a := src[j]
			j++
			if a.IsContiguous() {
				copy(dst(n.params[pid], pd.Learnable), a.Data())
			} else {
				copy(dst(n.params[pid], pd.Learnable), a.Contiguous().Data())
			}
		}
	}
	return nil
}

// ShareWeights makes every layer of n that has the name of a layer of
// src with parameters use src's parameter values (not its gradients), as
// Caffe's test nets share the train net's weights. Shapes must match.
func (n *Net) ShareWeights(src *Net) error {
	for i, ld := range n.def.Layers {
		if len(ld.Params) == 0 {
			continue
		}
		si, ok := src.layerByName[ld.Name]
		if !ok {
			continue
		}
		from := src.layerParams(si)
		if len(from) != len(ld.Params) {
			return fmt.Errorf("caffe: cannot share weights of layer %q: %d parameter blobs in net %q, %d in net %q",
				ld.Name, len(from), src.def.Name, len(ld.Params), n.def.Name)
		}
		to := n.layerParams(i)
		for j := range to {
			if !slices.Equal(to[j].shape, from[j].shape) {
				return fmt.Errorf("caffe: cannot share weights of layer %q blob %d: shape %v in net %q, %v in net %q",
					ld.Name, j, from[j].shape, src.def.Name, to[j].shape, n.def.Name)
			}
		}
		for j := range to {
			to[j].ShareData(from[j])
		}
	}
	return nil
}

// MemoryDataLayers returns the net's MemoryData layers in order, for
// feeding it from Go.
func (n *Net) MemoryDataLayers() []*MemoryData {
	var out []*MemoryData
	for _, l := range n.layers {
		if m, ok := l.(*MemoryData); ok {
			out = append(out, m)
		}
	}
	return out
}

// MemoryDataLayer returns the MemoryData layer called name.
func (n *Net) MemoryDataLayer(name string) (*MemoryData, error) {
	l := n.Layer(name)
	if m, ok := l.(*MemoryData); ok {
		return m, nil
	}
	var names []string
	for i, l := range n.layers {
		if _, ok := l.(*MemoryData); ok {
			names = append(names, n.def.Layers[i].Name)
		}
	}
	if l == nil {
		return nil, fmt.Errorf("caffe: net %q has no layer %q (MemoryData layers: %s)", n.def.Name, name, orNone(names))
	}
	return nil, fmt.Errorf("caffe: layer %q of net %q is a %s layer, not MemoryData (MemoryData layers: %s)", name, n.def.Name, l.Type(), orNone(names))
}

// ErrDiverged is wrapped by the error a solver returns when the loss
// becomes NaN or infinite.
var ErrDiverged = errors.New("caffe: training diverged")

// paramArrays returns the parameter blobs of every layer as array views by
// layer name (the first layer of a repeated name wins), layers without
// parameters included with an empty list.
func (n *Net) paramArrays() map[string][]*ndarray.Array {
	out := make(map[string][]*ndarray.Array, len(n.def.Layers))
	for i, ld := range n.def.Layers {
		if _, dup := out[ld.Name]; dup {
			continue
		}
		arrs := []*ndarray.Array{}
		for _, b := range n.layerParams(i) {
			arrs = append(arrs, b.Data())
		}
		out[ld.Name] = arrs
	}
	return out
}

// CopyFrom copies the weights of a trained net (a .caffemodel as
// ReadCaffemodel returns it) into the layers of the same name, as Caffe's
// CopyTrainedLayersFrom: source layers the net lacks are ignored, layers
// the source lacks keep their values, and a layer whose blob count or
// shapes differ is an error naming it (nothing is copied then).
func (n *Net) CopyFrom(model *caffepb.NetParameter) (*CopyReport, error) {
	return CopyWeights(model, n.paramArrays())
}

// LoadWeights reads a .caffemodel (any Caffe version) and copies its
// weights into the net as CopyFrom does. A file that has weights for none
// of the net's layers with parameters is an error (CopyReport.Err); the
// report's Kept lists the layers a partial file left at their fillers.
func (n *Net) LoadWeights(path string) (*CopyReport, error) {
	model, err := ReadCaffemodel(path)
	if err != nil {
		return nil, err
	}
	rep, err := n.CopyFrom(model)
	if err != nil {
		return nil, fmt.Errorf("%w (loading %s)", err, path)
	}
	if err := rep.Err(path); err != nil {
		return nil, err
	}
	return rep, nil
}

// ToProto returns the net as Caffe's Net::ToProto: every built layer's
// definition with its current parameter values as blobs (and their
// gradients as diffs when withDiff is set), copied.
func (n *Net) ToProto(withDiff bool) *caffepb.NetParameter {
	np := n.def.Proto(n.paramArrays())
	if withDiff {
		for i, lp := range np.Layer {
			for j, b := range n.layerParams(i) {
				lp.Blobs[j].Diff = slices.Clone(b.grad())
			}
		}
	}
	return np
}

// SaveWeights writes the net as a .caffemodel that Caffe reads, through a
// temporary file renamed into place.
func (n *Net) SaveWeights(path string) error {
	return WriteCaffemodel(path, n.ToProto(false))
}
