package tool

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"google.golang.org/protobuf/proto"
)

// dataFlag is --data=KIND=DIR: every Data layer reads the data set of a
// registered kind in DIR (its training split in TRAIN nets, its test split
// in TEST nets).
type dataFlag struct{ source string }

func (d *dataFlag) String() string { return d.source }

func (d *dataFlag) Set(v string) error {
	kinds := caffe.SplitDataSources()
	kind, dir, ok := strings.Cut(v, "=")
	if !ok || kind == "" || dir == "" {
		return fmt.Errorf("want KIND=DIR with KIND one of %s, e.g. mnist=/data/mnist; got %q", strings.Join(kinds, ", "), v)
	}
	if slices.Contains(caffe.DataSources(), kind) && !slices.Contains(kinds, kind) {
		return fmt.Errorf("%s data sets hold one split per path, not a training and a test set: name each as its Data layer's source (data_param.source) instead; --data takes %s", kind, strings.Join(kinds, ", "))
	}
	if !slices.Contains(kinds, kind) {
		return fmt.Errorf("unknown data set kind %q; known kinds: %s", kind, strings.Join(kinds, ", "))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	d.source = kind + ":" + abs
	return nil
}

// threadsFlag is --threads=N: goroutines per layer, 0 for all cores, and
// at most maxThreads.
type threadsFlag int

func (t *threadsFlag) String() string { return strconv.Itoa(int(*t)) }

// maxThreads bounds --threads: more goroutines than a few per core only
// slow the kernels down.
func maxThreads() int { return 4 * runtime.NumCPU() }

func (t *threadsFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	cores := runtime.NumCPU()
	if err != nil || n < 0 || n > maxThreads() {
		return fmt.Errorf("this machine has %d cores; give 0 (all of them) or 1 to %d", cores, maxThreads())
	}
	*t = threadsFlag(n)
	return nil
}

func registerThreads(fs *flag.FlagSet) *threadsFlag {
	var t threadsFlag
	fs.Var(&t, "threads", "goroutines per layer (0: all cores)")
	return &t
}

const dataUsage = "point every Data layer at a data set, KIND=DIR (e.g. mnist=DIR, a folder of MNIST IDX files): " +
	"TRAIN-phase layers read its training set, TEST-phase layers its test set"

// interruptible returns a context cancelled by Ctrl-C (SIGINT).
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// netInputs prepares a net definition for running from the command line:
// with --data its Data layers read that data set; otherwise Data layers
// whose data top has an --input-shape are replaced by MemoryData layers
// fed with synthetic batches (for timing nets without their data).
// It returns the replaced layers.
func netInputs(np *caffepb.NetParameter, data string, shapes shapeFlags) ([]caffe.DataInput, error) {
	if data != "" {
		caffe.SetDataSources(np, data)
		return nil, nil
	}
	var replaced []caffe.DataInput
	for _, l := range np.GetLayer() {
		if l.GetType() != "Data" || len(l.Top) == 0 {
			continue
		}
		shape, ok := shapes[l.Top[0]]
		if !ok {
			continue
		}
		if len(shape) != 4 {
			return nil, usageErrorf("--input-shape for Data layer %q's top %q needs 4 dimensions N,C,H,W, got %v", l.GetName(), l.Top[0], shape)
		}
		if l.DataParam == nil {
			l.DataParam = &caffepb.DataParameter{}
		}
		b := uint32(shape[0])
		l.DataParam.BatchSize = &b
		one := &caffepb.NetParameter{Layer: []*caffepb.LayerParameter{l}}
		in, err := caffe.ReplaceDataLayers(one, shape[1], shape[2], shape[3])
		if err != nil {
			return nil, err
		}
		// ReplaceDataLayers sizes the data top from the crop; the given
		// shape is the top's shape.
		h, w := uint32(shape[2]), uint32(shape[3])
		l.MemoryDataParam.Height, l.MemoryDataParam.Width = &h, &w
		replaced = append(replaced, in...)
	}
	return replaced, nil
}

// The synthetic batches are made before the net runs, at most
// syntheticBatches of them and syntheticBytes in all (but at least one),
// and
// handed out in turn, as Caffe's data layers hand out the batches their
// prefetch thread loaded: a data layer's Forward then costs a copy of
// the batch, not the making of it.
const (
	syntheticBatches = 4
	syntheticBytes   = 64 << 20
)

// feedSynthetic makes the net's MemoryData layers produce fixed
// pseudo-random batches: values uniform in [0, 1) (the stream of
// caffe.FillSynthetic, its first batches repeating) and labels 0..9.
func feedSynthetic(net *caffe.Net) {
	for _, md := range net.MemoryDataLayers() {
		n, c, h, w := md.BatchShape()
		md.SetFeeder(syntheticFeeder(n, n*c*h*w))
	}
}

// syntheticRing returns the ring's batches of size values, not filled.
func syntheticRing(size int) [][]float32 {
	ring := make([][]float32, max(1, min(syntheticBatches, syntheticBytes/max(1, 4*size))))
	for i := range ring {
		ring[i] = make([]float32, size)
	}
	return ring
}

// syntheticFeeder returns a feeder of batches of n labels and size values
// taken in turn from a ring made ahead; a batch of another size (after
// SetBatchSize) is made as it is asked for, continuing the stream.
func syntheticFeeder(n, size int) func(data, label []float32) error {
	ring := syntheticRing(size)
	k, state := len(ring), uint32(12345)
	for i := range ring {
		state = caffe.FillSynthetic(ring[i], state)
	}
	labels := make([]float32, n)
	for i := range labels {
		labels[i] = float32(i % 10)
	}
	next := 0
	return func(data, label []float32) error {
		if len(data) == size {
			copy(data, ring[next])
			next = (next + 1) % k
		} else {
			state = caffe.FillSynthetic(data, state)
		}
		if len(label) == n {
			copy(label, labels)
		} else {
			for i := range label {
				label[i] = float32(i % 10)
			}
		}
		return nil
	}
}

// build reads the net named by the flags, applies --data or the
// synthetic inputs, and builds it for the flags' state.
func (f *netFlags) build(data string, shapes shapeFlags, threads int, seed uint64) (*caffe.Net, error) {
	np, synthetic, err := f.load(data, shapes)
	if err != nil {
		return nil, err
	}
	phase, err := caffe.ParsePhase(f.phase)
	if err != nil {
		return nil, usageErrorf("--phase: %v", err)
	}
	state := f.state(np, phase)
	net, err := caffe.NewNet(np, caffe.NetOptions{State: &state, Threads: threads, Seed: seed, Dir: filepath.Dir(f.model)})
	if err != nil {
		return nil, err
	}
	if err := applyInputs(net, synthetic, shapes); err != nil {
		return nil, err
	}
	return net, nil
}

// load reads the net named by the flags and applies --data or the
// synthetic inputs to its definition (netInputs).
func (f *netFlags) load(data string, shapes shapeFlags) (*caffepb.NetParameter, []caffe.DataInput, error) {
	if f.model == "" {
		return nil, nil, usageErrorf("--model is required")
	}
	np, err := caffe.LoadNetParameter(f.model)
	if err != nil {
		return nil, nil, err
	}
	synthetic, err := netInputs(np, data, shapes)
	return np, synthetic, err
}

// applyInputs gives the built net's blobs the --input-shape shapes (but
// those of the synthetic data layers, which have them) and feeds its
// synthetic data layers.
func applyInputs(net *caffe.Net, synthetic []caffe.DataInput, shapes shapeFlags) error {
	for name, shape := range shapes {
		b := net.Blob(name)
		if b == nil {
			return usageErrorf("--input-shape: net %q has no blob %q", net.Name(), name)
		}
		if !isReplaced(synthetic, name) {
			b.Reshape(shape...)
		}
	}
	if len(synthetic) > 0 {
		feedSynthetic(net)
	}
	return nil
}

func isReplaced(in []caffe.DataInput, top string) bool {
	for _, d := range in {
		if len(d.Tops) > 0 && d.Tops[0] == top {
			return true
		}
	}
	return false
}

// formatValue prints a number as Caffe's logs do (6 significant digits).
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// outputLine formats one output value as Caffe does:
// "loss = 0.0283 (* 1 = 0.0283 loss)".
func outputLine(name string, v float64, weight float32) string {
	s := name + " = " + formatValue(v)
	if weight != 0 {
		s += " (* " + formatValue(float64(weight)) + " = " + formatValue(float64(weight)*v) + " loss)"
	}
	return s
}

// loadWeights loads comma-separated .caffemodel files into net, as Caffe's
// tools do, and returns the layers with parameters that none of them had
// (left at the values their fillers gave). A file with weights for none of
// the net's layers is an error.
func loadWeights(net *caffe.Net, files string, copied func(file string, layers []string)) (kept []string, err error) {
	left := map[string]bool{}
	first := true
	for _, w := range strings.Split(files, ",") {
		if w == "" {
			continue
		}
		rep, err := net.LoadWeights(w)
		if err != nil {
			return nil, err
		}
		if copied != nil {
			copied(w, rep.Copied)
		}
		now := map[string]bool{}
		for _, k := range rep.Kept {
			if first || left[k] {
				now[k] = true
			}
		}
		left, first = now, false
	}
	for k := range left {
		kept = append(kept, k)
	}
	slices.Sort(kept)
	return kept, nil
}

// buildSolver builds a solver for the net named by the flags, in the
// TRAIN phase at the flags' level and stages, with --data or the
// synthetic inputs applied as build applies them: the update rule and
// its settings of the solver definition at solverPath, or, without one,
// SGD with lr 0.01, momentum 0.9 and weight decay 5e-4 (Caffe's LeNet
// example). The definition's own nets, tests, display and snapshots are
// left out: the solver trains the flags' net and writes nothing.
func (f *netFlags) buildSolver(solverPath, data string, shapes shapeFlags, threads int) (*caffe.Solver, error) {
	np, synthetic, err := f.load(data, shapes)
	if err != nil {
		return nil, err
	}
	state := &caffepb.NetState{Level: proto.Int32(int32(f.level))}
	if f.stage != "" {
		state.Stage = strings.Split(f.stage, ",")
	}
	sp := &caffepb.SolverParameter{
		Type: proto.String("SGD"), BaseLr: proto.Float32(0.01), Momentum: proto.Float32(0.9),
		WeightDecay: proto.Float32(5e-4), LrPolicy: proto.String("fixed"),
	}
	if solverPath != "" {
		// Parsed, not loaded: its nets, which it may name by paths
		// elsewhere, are not used.
		src, err := os.ReadFile(solverPath)
		if err != nil {
			return nil, err
		}
		if sp, err = caffe.ParseSolverParameter(solverPath, src); err != nil {
			return nil, err
		}
		sp.Net, sp.TrainNet, sp.TrainNetParam, sp.TestNet, sp.TestNetParam = nil, nil, nil, nil, nil
		sp.TestState, sp.TestIter, sp.TestInterval, sp.TestInitialization = nil, nil, nil, nil
		sp.Display, sp.Snapshot, sp.SnapshotAfterTrain = proto.Int32(0), proto.Int32(0), proto.Bool(false)
	}
	sp.NetParam, sp.TrainState = np, state
	s, err := caffe.NewSolver(sp, caffe.SolverOptions{Threads: threads, Dir: filepath.Dir(f.model)})
	if err != nil {
		return nil, err
	}
	if err := applyInputs(s.Net(), synthetic, shapes); err != nil {
		return nil, err
	}
	fillInputs(s.Net())
	// As sparknet train: the fused groups skip the tops no layer reads.
	s.Net().SetKeepTops(false)
	return s, nil
}

// fillInputs gives the net's Input blobs synthetic values, as
// syntheticFeeder does: labels 0..9 in turn in the blobs that losses and
// accuracies read as labels (their second bottom, through Split layers),
// caffe.FillSynthetic's stream in the others. Training on zeros would
// drive the weights towards denormal numbers, which some cores compute
// many times slower.
func fillInputs(net *caffe.Net) {
	def := net.Def()
	labels := map[string]bool{}
	for i := len(def.Layers) - 1; i >= 0; i-- {
		l := def.Layers[i]
		switch {
		case (strings.HasSuffix(l.Type, "Loss") || l.Type == "Accuracy") && len(l.Bottoms) > 1:
			labels[l.Bottoms[1]] = true
		case l.Type == "Split" && len(l.Bottoms) == 1 && slices.ContainsFunc(l.Tops, func(t string) bool { return labels[t] }):
			labels[l.Bottoms[0]] = true
		}
	}
	state := uint32(12345)
	for _, name := range net.Inputs() {
		v := net.Blob(name).DataSlice()
		if labels[name] {
			for i := range v {
				v[i] = float32(i % 10)
			}
			continue
		}
		state = caffe.FillSynthetic(v, state)
	}
}
