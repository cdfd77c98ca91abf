package caffe

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// SolverOptions configures a solver beyond its SolverParameter. The zero
// value uses all cores and the solver's own settings.
type SolverOptions struct {
	// Threads is how many goroutines each layer's kernels may use; 0 means
	// GOMAXPROCS. A worker running one solver per core uses 1.
	Threads int
	// Seed seeds the nets' random numbers (fillers, dropout, data crops).
	// 0 uses the solver's random_seed when it sets one, else seed 0, so
	// that runs are repeatable (Caffe would draw a random seed).
	Seed uint64
	// Dir is the folder relative paths in the solver's net files and in
	// its nets (data sources, mean files) resolve against; LoadSolver sets
	// it to the solver file's folder. snapshot_prefix, as in Caffe, is
	// relative to the working folder.
	Dir string
	// SearchDirs are further folders where net files are looked for, by
	// their relative path and by their base name, after Dir.
	SearchDirs []string
	// DataSource, when set, replaces the source of every Data layer: it is
	// "KIND:PATH" for a registered data source kind (see
	// RegisterDataSource), e.g. "mnist:/data/mnist". TRAIN-phase layers
	// read the training split, TEST-phase ones the test split.
	DataSource string
	// Rewrite, when set, may change each net's definition (after legacy
	// upgrades) before the net is built; state says which net it is. See
	// ReplaceDataLayers for feeding the nets from Go.
	Rewrite func(np *caffepb.NetParameter, state NetState) error
	// SnapshotPrefix, when set, replaces snapshot_prefix.
	SnapshotPrefix string
}

// Solver trains a net as Caffe's solvers do: each iteration clears the
// gradients, runs iter_size forward/backward passes, clips, normalises
// and regularises the gradients, turns them into steps with its update
// rule (SGD, Nesterov, AdaGrad, RMSProp, AdaDelta, Adam) and the learning
// rate policy, and updates the weights. Test nets share the train net's
// weights and are run every test_interval iterations.
//
// A Solver is not safe for concurrent use.
type Solver struct {
	param    *caffepb.SolverParameter
	opts     SolverOptions
	typeName string
	rule     UpdateRule
	policy   LRPolicy
	l1       bool

	net      *Net
	testNets []*Net

	iter        int
	currentStep int

	lrMult, decayMult []float32
	// The multi-threaded SGD step: its parts and runner, set up on first
	// use, and the current rate.
	sgdChunks  []sgdSpan
	sgdRunner  parallelRunner
	sgdFn      func(w, p int)
	sgdRate    float32
	sgdFrom    int
	clearFn    func(w, p int) // clears the gradients of a part (clearPart)
	history    [][]*Blob      // [set][learnable param]
	histSlices [][][]float32  // [learnable param][set]
	// histOut records that History handed the history out: the SGD step
	// then writes the diffs instead of deferring them (Blob.deferDiff).
	histOut bool

	// The iterations that update within the backward pass
	// (solver_step.go): where, the parts being run, the functions that
	// run a part, each goroutine's views of a part's history, and the
	// iteration's settings.
	plan                 *stepPlan
	spans                []sgdSpan
	spanFn               func(w, p int)
	spanHist             [][][]float32
	stepWD, stepMomentum float32

	losses    []float32 // ring of recent losses, for the smoothed loss
	smoothed  float32
	startIter int

	outputs []NetOutput // reused in StepEvents

	onStep     func(StepEvent)
	onTest     func(TestEvent)
	onSnapshot func(SnapshotEvent)

	restoredWeights string // the weights file the last Restore or SetState loaded
}

// NetOutput is one output blob of a net: its values and loss weight.
type NetOutput struct {
	Name string
	// Values views the blob's values; it is valid only during the event
	// handler that receives it.
	Values     []float32
	LossWeight float32
}

// StepEvent reports a finished training iteration.
type StepEvent struct {
	// Iter is the iteration's number, counted from 0 as Caffe's log
	// numbers them; Solver.Iter() is Iter+1 afterwards.
	Iter int
	// Loss is the iteration's loss (the mean over iter_size passes) and
	// SmoothedLoss the mean over the last average_loss iterations, which
	// Caffe displays.
	Loss, SmoothedLoss float32
	// LR is the policy's learning rate for the iteration (before lr_mult).
	LR float32
	// Display is set when the solver's display setting asks to show this
	// iteration.
	Display bool
	// Outputs are the train net's output blobs after the last pass.
	Outputs []NetOutput
}

// TestEvent reports a test of one test net.
type TestEvent struct {
	Iter   int
	Result TestResult
	// Elapsed is how long the test took.
	Elapsed time.Duration
}

// TestResult is the outcome of running a test net test_iter times.
type TestResult struct {
	// Net is the test net's index.
	Net int
	// Outputs holds, for each element of each output blob (blobs in name
	// order), the mean over the passes.
	Outputs []TestOutput
	// Loss is the mean loss, when test_compute_loss is set.
	Loss float64
}

// TestOutput is the mean of one element of a test net's output blob.
type TestOutput struct {
	Blob       string
	Index      int // the element's index within the blob
	Value      float64
	LossWeight float32
}

// Get returns the mean of the first element of the output blob called
// name, and whether there is one.
func (r TestResult) Get(name string) (float64, bool) {
	for _, o := range r.Outputs {
		if o.Blob == name {
			return o.Value, true
		}
	}
	return 0, false
}

// SnapshotEvent reports the files a snapshot wrote.
type SnapshotEvent struct {
	Iter       int
	Model      string
	SolverFile string
}

// LoadSolver reads a solver definition (.prototxt) and builds it with its
// nets, resolving relative paths against the file's folder.
func LoadSolver(path string) (*Solver, error) {
	return LoadSolverWith(path, SolverOptions{})
}

// LoadSolverWith is LoadSolver with options; an empty opts.Dir becomes
// the solver file's folder.
func LoadSolverWith(path string, opts SolverOptions) (*Solver, error) {
	sp, err := LoadSolverParameterWith(path, LoadOptions{SearchDirs: opts.SearchDirs})
	if err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		opts.Dir = filepath.Dir(path)
	}
	return NewSolver(sp, opts)
}

// NewSolver builds a solver and its train and test nets.
func NewSolver(sp *caffepb.SolverParameter, opts SolverOptions) (*Solver, error) {
	sp = format.CloneSolver(sp)
	if err := format.UpgradeSolverParameter(sp); err != nil {
		return nil, err
	}
	if opts.SnapshotPrefix != "" {
		sp.SnapshotPrefix = proto.String(opts.SnapshotPrefix)
	}
	if opts.Seed == 0 && sp.GetRandomSeed() >= 0 {
		opts.Seed = uint64(sp.GetRandomSeed())
	}
	s := &Solver{param: sp, opts: opts}
	s.sgdFn, s.clearFn = s.sgdChunk, s.clearPart
	var err error
	if s.rule, s.typeName, err = lookupUpdateRule(sp); err != nil {
		return nil, err
	}
	if s.policy, err = lookupLRPolicy(sp); err != nil {
		return nil, err
	}
	switch sp.GetRegularizationType() {
	case "L2":
	case "L1":
		s.l1 = true
	default:
		return nil, fmt.Errorf("caffe: unknown regularization_type %q; use \"L2\" or \"L1\"", sp.GetRegularizationType())
	}
	if sp.GetIterSize() < 1 {
		return nil, fmt.Errorf("caffe: iter_size must be at least 1, got %d", sp.GetIterSize())
	}
	if sp.GetAverageLoss() < 1 {
		return nil, fmt.Errorf("caffe: average_loss must be at least 1, got %d", sp.GetAverageLoss())
	}
	if sp.GetSnapshotFormat() == caffepb.SolverParameter_HDF5 && sp.GetSnapshot() > 0 {
		return nil, fmt.Errorf("caffe: snapshot_format HDF5 is not supported; use snapshot_format: BINARYPROTO")
	}
	if err := s.inlineNetFiles(); err != nil {
		return nil, err
	}
	if err := s.initTrainNet(); err != nil {
		return nil, err
	}
	if err := s.initTestNets(); err != nil {
		return nil, err
	}
	s.initHistory()
	return s, nil
}

// buildNet runs the rewrites and builds one net.
func (s *Solver) buildNet(np *caffepb.NetParameter, state NetState, what string) (*Net, error) {
	np = format.CloneNet(np)
	if format.NetNeedsUpgrade(np) {
		if err := format.UpgradeNetParameter(np); err != nil {
			return nil, fmt.Errorf("%w (%s)", err, what)
		}
	}
	if s.opts.DataSource != "" {
		SetDataSources(np, s.opts.DataSource)
	}
	if s.opts.Rewrite != nil {
		if err := safeRewrite(s.opts.Rewrite, np, state); err != nil {
			return nil, fmt.Errorf("caffe: rewriting the %s: %w", what, err)
		}
	}
	return NewNet(np, NetOptions{State: &state, Threads: s.opts.Threads, Seed: s.opts.Seed, Dir: s.opts.Dir})
}

func safeRewrite(f func(*caffepb.NetParameter, NetState) error, np *caffepb.NetParameter, st NetState) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f(np, st)
}

func (s *Solver) initTrainNet() error {
	np, err := TrainNetParameter(s.param)
	if err != nil {
		return err
	}
	if s.net, err = s.buildNet(np, NetStateOf(np), "train net"); err != nil {
		return err
	}
	for _, name := range s.net.def.Outputs {
		s.outputs = append(s.outputs, NetOutput{Name: name, LossWeight: s.net.blobLossWeight(name)})
	}
	return nil
}

func (s *Solver) initTestNets() error {
	nets, err := TestNetParameters(s.param)
	if err != nil {
		return err
	}
	for i, np := range nets {
		tn, err := s.buildNet(np, NetStateOf(np), fmt.Sprintf("test net %d", i))
		if err != nil {
			return err
		}
		if err := tn.ShareWeights(s.net); err != nil {
			return err
		}
		s.testNets = append(s.testNets, tn)
	}
	return nil
}

// inlineNetFiles reads the net files the solver names (net, train_net,
// test_net) and stores them inline, looking for each relative to Dir, by
// base name there, in SearchDirs and relative to the working folder.
func (s *Solver) inlineNetFiles() error {
	sp := s.param
	solverPath := filepath.Join(s.opts.Dir, "solver.prototxt")
	load := func(field, name string) (*caffepb.NetParameter, error) {
		file, err := FindNetFile(solverPath, name, LoadOptions{SearchDirs: s.opts.SearchDirs})
		if err != nil {
			return nil, fmt.Errorf("caffe: solver %s: %w", field, err)
		}
		return LoadNetParameter(file)
	}
	var err error
	if sp.Net != nil && sp.NetParam == nil {
		if sp.NetParam, err = load("net", sp.GetNet()); err != nil {
			return err
		}
		sp.Net = nil
	}
	if sp.TrainNet != nil && sp.TrainNetParam == nil {
		if sp.TrainNetParam, err = load("train_net", sp.GetTrainNet()); err != nil {
			return err
		}
		sp.TrainNet = nil
	}
	for _, name := range sp.TestNet {
		np, err := load("test_net", name)
		if err != nil {
			return err
		}
		sp.TestNetParam = append(sp.TestNetParam, np)
	}
	sp.TestNet = nil
	return nil
}

// blobLossWeight returns the loss weight of the blob called name (0 if it
// is not a loss).
func (n *Net) blobLossWeight(name string) float32 {
	b := n.Blob(name)
	for _, lt := range n.lossTops {
		if lt.blob == b {
			return lt.weight
		}
	}
	return 0
}

// initHistory allocates the update rule's state, zero, one set per
// History for every learnable parameter.
func (s *Solver) initHistory() {
	def := s.net.def
	s.lrMult = make([]float32, len(def.Learnable))
	s.decayMult = make([]float32, len(def.Learnable))
	for k, pid := range def.Learnable {
		s.lrMult[k] = def.Params[pid].LrMult
		s.decayMult[k] = def.Params[pid].DecayMult
	}
	s.history = make([][]*Blob, s.rule.History)
	for set := range s.history {
		s.history[set] = make([]*Blob, len(s.net.learnable))
		for k, p := range s.net.learnable {
			s.history[set][k] = NewBlob(p.shape...)
		}
	}
	s.histSlices = make([][][]float32, len(s.net.learnable))
	for k := range s.histSlices {
		s.histSlices[k] = make([][]float32, s.rule.History)
		for set := range s.history {
			s.histSlices[k][set] = s.history[set][k].DataSlice()
		}
	}
	s.losses = make([]float32, 0, s.param.GetAverageLoss())
}

// Param returns the solver's definition (after legacy upgrades and
// option overrides). Changing it affects later iterations.
func (s *Solver) Param() *caffepb.SolverParameter { return s.param }

// Type returns the solver type, such as "SGD".
func (s *Solver) Type() string { return s.typeName }

// Net returns the train net.
func (s *Solver) Net() *Net { return s.net }

// TestNets returns the test nets, which share the train net's weights.
func (s *Solver) TestNets() []*Net { return slices.Clone(s.testNets) }

// Iter returns the number of iterations done.
func (s *Solver) Iter() int { return s.iter }

// SetIter sets the number of iterations done, which drives the learning
// rate policy, testing and snapshots.
func (s *Solver) SetIter(iter int) { s.iter = iter }

// CurrentStep returns the step counter of the step and multistep
// policies.
func (s *Solver) CurrentStep() int { return s.currentStep }

// SetCurrentStep sets the step counter (restored from a snapshot).
func (s *Solver) SetCurrentStep(step int) { s.currentStep = step }

// OnStep sets the function called after every iteration (nil for none).
// A panic in it stops Step with an error.
func (s *Solver) OnStep(f func(StepEvent)) { s.onStep = f }

// OnTest sets the function called after each test net is run.
func (s *Solver) OnTest(f func(TestEvent)) { s.onTest = f }

// OnSnapshot sets the function called after each snapshot.
func (s *Solver) OnSnapshot(f func(SnapshotEvent)) { s.onSnapshot = f }

// LearningRate returns the policy's rate for the next iteration.
func (s *Solver) LearningRate() float32 {
	step := s.currentStep
	return float32(s.policy.Rate(s.param, s.iter, &step))
}

// callHook runs an event handler, turning a panic into an error.
func callHook[E any](f func(E), e E) (err error) {
	if f == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("caffe: event handler panicked: %v", r)
		}
	}()
	f(e)
	return nil
}

// Solve trains until max_iter as Caffe's Solver::Solve: the remaining
// iterations, a final snapshot (unless snapshot_after_train is false or
// one was just written), and a final test when test_interval divides
// max_iter.
func (s *Solver) Solve(ctx context.Context) error {
	if err := s.Step(ctx, int(s.param.GetMaxIter())-s.iter); err != nil {
		return err
	}
	sp := s.param
	if sp.GetSnapshotAfterTrain() && (sp.GetSnapshot() == 0 || s.iter%int(sp.GetSnapshot()) != 0) {
		if _, _, err := s.Snapshot(); err != nil {
			return err
		}
	}
	if ti := int(sp.GetTestInterval()); ti > 0 && s.iter%ti == 0 {
		if _, err := s.TestAll(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Step runs n iterations. It returns early with ctx's error when ctx is
// cancelled (checked between iterations), and with an error wrapping
// ErrDiverged, naming the iteration and the first layer whose output is
// not finite, when the loss becomes NaN or infinite.
func (s *Solver) Step(ctx context.Context, n int) error {
	sp := s.param
	s.losses = s.losses[:0]
	s.smoothed = 0
	s.startIter = s.iter
	iterSize := int(sp.GetIterSize())
	ti := int(sp.GetTestInterval())
	display := int(sp.GetDisplay())
	beginPass() // the layers' goroutines keep polling between iterations
	defer endPass()
	for stop := s.iter + n; s.iter < stop; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ti > 0 && len(s.testNets) > 0 && s.iter%ti == 0 && (s.iter > 0 || sp.GetTestInitialization()) {
			if _, err := s.TestAll(ctx); err != nil {
				return err
			}
		}
		var loss, rate float32
		if s.inPassStep() {
			l, err := s.stepInPass()
			if err != nil {
				return fmt.Errorf("%w (iteration %d)", err, s.iter)
			}
			if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
				return s.divergence(l)
			}
			loss, rate = l, s.sgdRate
			s.updateSmoothedLoss(loss)
		} else {
			s.clearParamDiffs()
			for k := 0; k < iterSize; k++ {
				l, err := s.net.ForwardBackward()
				if err != nil {
					return fmt.Errorf("%w (iteration %d)", err, s.iter)
				}
				if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
					return s.divergence(l)
				}
				loss += l
			}
			loss /= float32(iterSize)
			s.updateSmoothedLoss(loss)
			rate = s.applyUpdate()
		}
		if s.onStep != nil {
			for i := range s.outputs {
				s.outputs[i].Values = s.net.Blob(s.outputs[i].Name).DataSlice()
			}
			e := StepEvent{Iter: s.iter, Loss: loss, SmoothedLoss: s.smoothed, LR: rate,
				Display: display > 0 && s.iter%display == 0, Outputs: s.outputs}
			if err := callHook(s.onStep, e); err != nil {
				return err
			}
		}
		s.iter++
		if snap := int(sp.GetSnapshot()); snap > 0 && s.iter%snap == 0 {
			if _, _, err := s.Snapshot(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Solver) divergence(loss float32) error {
	if layer, top, ok := s.net.firstNonFinite(); ok {
		return fmt.Errorf("%w: iteration %d: the loss is %v; the first non-finite values are in top %q of layer %q (lower base_lr, or check the data and the layer)",
			ErrDiverged, s.iter, loss, top, layer)
	}
	return fmt.Errorf("%w: iteration %d: the loss is %v (lower base_lr)", ErrDiverged, s.iter, loss)
}

// updateSmoothedLoss keeps the mean of the last average_loss losses, as
// Caffe's UpdateSmoothedLoss.
func (s *Solver) updateSmoothedLoss(loss float32) {
	avg := int(s.param.GetAverageLoss())
	if len(s.losses) < avg {
		s.losses = append(s.losses, loss)
		n := float32(len(s.losses))
		s.smoothed = (s.smoothed*(n-1) + loss) / n
		return
	}
	i := (s.iter - s.startIter) % avg
	s.smoothed += (loss - s.losses[i]) / float32(avg)
	s.losses[i] = loss
}

// applyUpdate turns the gradients into steps and updates the weights, as
// Caffe's SGDSolver::ApplyUpdate; it returns the policy's rate.
func (s *Solver) applyUpdate() float32 {
	sp := s.param
	rate := float32(s.policy.Rate(sp, s.iter, &s.currentStep))
	s.clipGradients()
	iterSize := sp.GetIterSize()
	wd := sp.GetWeightDecay()
	// SGD with L2 decay (or none) takes one pass over each parameter
	// (kernel.SGDStep) instead of four, with the same results.
	fused := s.typeName == "SGD" && (!s.l1 || wd == 0)
	if fused && s.net.Threads() > 1 {
		// Shared out among the threads in chunks.
		if iterSize > 1 {
			for _, b := range s.net.learnable {
				kernel.Scale(1/float32(iterSize), b.grad())
			}
		}
		s.sgdRate = rate
		s.runChunks(s.sgdFn)
		return rate
	}
	for k, b := range s.net.learnable {
		diff, data := b.grad(), b.DataSlice()
		if iterSize > 1 {
			kernel.Scale(1/float32(iterSize), diff)
		}
		if fused {
			kernel.SGDStep(data, diff, s.histSlices[k][0], wd*s.decayMult[k], rate*s.lrMult[k], sp.GetMomentum())
			continue
		}
		s.regularize(data, diff, wd*s.decayMult[k])
		s.rule.Apply(sp, s.iter, rate*s.lrMult[k], diff, s.histSlices[k])
	}
	if !fused {
		s.net.Update()
	}
	return rate
}

// runChunks runs fn on every part (sgdSpan) of the learnable
// parameters, shared out among the net's threads.
func (s *Solver) runChunks(fn func(w, p int)) {
	if s.sgdChunks == nil {
		for k, b := range s.net.learnable {
			s.sgdChunks = append(s.sgdChunks, splitParam(k, b.Count(), s.net.Threads())...)
		}
	}
	s.runSpans(s.sgdChunks, fn)
}

// clearParamDiffs is Net.ClearParamDiffs, shared out among the net's
// threads in the SGD step's parts.
func (s *Solver) clearParamDiffs() {
	for _, b := range s.net.learnable {
		b.diffFrom = nil // about to be cleared: nothing to copy out
	}
	if s.net.Threads() <= 1 {
		s.net.ClearParamDiffs()
		return
	}
	s.runChunks(s.clearFn)
}

// sgdChunkSize is how many values of a parameter a part of a
// multi-threaded SGD step updates.
const sgdChunkSize = 1 << 16

// sgdSpan is a part of a multi-threaded SGD step: values [lo, hi) of
// learnable parameter k; for an update run inside a Backward, ahead, if
// not 0, is how far (in values) the next update's span lies from this one
// (updateAheader).
type sgdSpan struct{ k, lo, hi, ahead int }

// sgdChunk runs part p of a multi-threaded SGD step (see applyUpdate).
func (s *Solver) sgdChunk(_, p int) {
	c := s.spans[s.sgdFrom+p]
	b := s.net.learnable[c.k]
	sp := s.param
	kernel.SGDStep(b.DataSlice()[c.lo:c.hi], b.grad()[c.lo:c.hi], s.histSlices[c.k][0][c.lo:c.hi],
		sp.GetWeightDecay()*s.decayMult[c.k], s.sgdRate*s.lrMult[c.k], sp.GetMomentum())
}

// regularize adds the weight decay's gradient to diff: decay·sign(data)
// with L1, decay·data with L2, as Caffe's SGDSolver::Regularize.
func (s *Solver) regularize(data, diff []float32, decay float32) {
	if decay == 0 {
		return
	}
	if !s.l1 {
		kernel.Axpy(decay, data, diff)
		return
	}
	for i, v := range data {
		switch {
		case v > 0:
			diff[i] += decay
		case v < 0:
			diff[i] -= decay
		}
	}
}

// clipGradients scales all gradients down when their global L2 norm
// exceeds clip_gradients.
func (s *Solver) clipGradients() {
	clip := s.param.GetClipGradients()
	if clip < 0 {
		return
	}
	var sumsq float32
	for _, b := range s.net.learnable {
		d := b.grad()
		sumsq += kernel.Dot(d, d)
	}
	l2 := float32(math.Sqrt(float64(sumsq)))
	if l2 > clip {
		f := clip / l2
		for _, b := range s.net.learnable {
			kernel.Scale(f, b.grad())
		}
	}
}

// TestAll runs every test net test_iter times and returns, per net, the
// mean of every output element (and of the loss with test_compute_loss).
func (s *Solver) TestAll(ctx context.Context) ([]TestResult, error) {
	out := make([]TestResult, 0, len(s.testNets))
	for i := range s.testNets {
		r, err := s.Test(ctx, i)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Test runs test net i test_iter[i] times, as Caffe's Solver::Test.
func (s *Solver) Test(ctx context.Context, i int) (TestResult, error) {
	if i < 0 || i >= len(s.testNets) {
		return TestResult{}, fmt.Errorf("caffe: test net %d does not exist (the solver has %d)", i, len(s.testNets))
	}
	tn := s.testNets[i]
	start := time.Now()
	res, err := EvaluateNet(ctx, tn, int(s.param.GetTestIter()[i]))
	if err != nil {
		return res, fmt.Errorf("%w (test net %d, iteration %d)", err, i, s.iter)
	}
	res.Net = i
	if !s.param.GetTestComputeLoss() {
		res.Loss = 0
	}
	if err := callHook(s.onTest, TestEvent{Iter: s.iter, Result: res, Elapsed: time.Since(start)}); err != nil {
		return res, err
	}
	return res, nil
}

// EvaluateNet runs net forward iters times and returns the mean of every
// element of its output blobs and of its loss, as Caffe's test does
// (`caffe test`, and the solver's test nets). It checks ctx between
// passes.
func EvaluateNet(ctx context.Context, net *Net, iters int) (TestResult, error) {
	var res TestResult
	var sums []float64
	var loss float64
	for it := 0; it < iters; it++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		l, err := net.Forward()
		if err != nil {
			return res, err
		}
		loss += float64(l)
		k := 0
		for _, name := range net.def.Outputs {
			vals := net.Blob(name).DataSlice()
			if it == 0 {
				for j := range vals {
					res.Outputs = append(res.Outputs, TestOutput{Blob: name, Index: j, LossWeight: net.blobLossWeight(name)})
					sums = append(sums, 0)
				}
			}
			for _, v := range vals {
				if k < len(sums) {
					sums[k] += float64(v)
				}
				k++
			}
		}
	}
	for k := range res.Outputs {
		res.Outputs[k].Value = sums[k] / float64(iters)
	}
	if iters > 0 {
		res.Loss = loss / float64(iters)
	}
	return res, nil
}

// History returns the update rule's state as a collection keyed by layer
// name, like Net.Weights: for each layer, the first history array of each
// of its learnable parameters, then (AdaDelta, Adam) the second ones. The
// arrays are views of the solver's state, not copies. As a caller may
// change the history through them, the parameters' diffs are from then on
// always written by the SGD step instead of deferred to the history
// (Blob.deferDiff), which they equal only until such a change.
func (s *Solver) History() *ndarray.WeightCollection {
	s.materializeDiffs()
	s.histOut = true
	return s.historyCollection()
}

// materializeDiffs copies every deferred diff of the net's learnable
// parameters into its storage, before something changes the history
// those diffs are deferred to.
func (s *Solver) materializeDiffs() {
	for _, b := range s.net.learnable {
		b.materializeDiff()
	}
}

func (s *Solver) historyCollection() *ndarray.WeightCollection {
	wc := ndarray.NewWeightCollection()
	def := s.net.def
	for _, ld := range def.Layers {
		var arrs []*ndarray.Array
		for set := range s.history {
			for _, pid := range ld.Params {
				if pd := def.Params[pid]; pd.Owner < 0 {
					arrs = append(arrs, s.history[set][pd.Learnable].Data())
				}
			}
		}
		if len(arrs) > 0 {
			wc.Set(ld.Name, arrs...)
		}
	}
	return wc
}

// SetHistory copies values into the update rule's state; wc must match
// History's layers and shapes, else nothing is copied and the error names
// the first layer that differs.
func (s *Solver) SetHistory(wc *ndarray.WeightCollection) error {
	want := s.historyCollection()
	if wc == nil {
		return fmt.Errorf("caffe: SetHistory: nil collection")
	}
	if err := want.Compatible(wc); err != nil {
		for _, name := range want.Layers() {
			if !wc.Has(name) {
				return fmt.Errorf("caffe: SetHistory: layer %q is missing (layers with history: %s)", name, format.SortedList(want.Layers()))
			}
		}
		return fmt.Errorf("caffe: SetHistory: the collection does not match the %s solver's state: %w", s.typeName, err)
	}
	s.materializeDiffs()
	want.CopyFrom(wc)
	return nil
}
