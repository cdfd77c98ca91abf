package caffe

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
)

// linearNet is a net whose loss is the sum of an InnerProduct's outputs,
// so that the gradients are constant: dL/dW[o][k] = sum over the batch of
// x[k], dL/db[o] = batch size. The weights take lr_mult 1 and decay_mult
// 1, the bias lr_mult 2 and decay_mult 0.
const linearNet = `
name: "linear"
layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 2 dim: 3 } } }
layer {
  name: "ip" type: "InnerProduct" bottom: "x" top: "ip" loss_weight: 1
  param { lr_mult: 1 decay_mult: 1 }
  param { lr_mult: 2 decay_mult: 0 }
  inner_product_param { num_output: 2 }
}
`

// newLinearSolver builds a solver over linearNet with the inputs and
// starting weights the expected values below were worked out for.
func newLinearSolver(t *testing.T, solver string) *Solver {
	t.Helper()
	np, err := ParseNetParameter("linear.prototxt", []byte(linearNet))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSolverParameter("solver.prototxt", []byte(solver))
	if err != nil {
		t.Fatal(err)
	}
	sp.NetParam = np
	s, err := NewSolver(sp, SolverOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	copy(s.Net().Blob("x").DataSlice(), []float32{1, 2, 3, -1, 0.5, 2})
	w := ndarray.NewWeightCollection()
	w.Set("ip", ndarray.FromSlice([]float32{0.5, -0.2, 0.1, 0.3, 0.4, -0.6}, 2, 3), ndarray.FromValues(0.1, -0.1))
	if err := s.Net().SetWeights(w); err != nil {
		t.Fatal(err)
	}
	return s
}

// linearWeights returns W (row-major) then b.
func linearWeights(s *Solver) []float32 {
	p := s.Net().Params("ip")
	return append(append([]float32(nil), p[0].DataSlice()...), p[1].DataSlice()...)
}

// TestSolverTypes runs three iterations of each solver type on linearNet
// with the step policy (rates 0.1, 0.05, 0.025), weight decay 0.01 and the
// multipliers above, and compares the weights after each iteration with
// values worked out by hand from Caffe's update formulas.
func TestSolverTypes(t *testing.T) {
	const common = `base_lr: 0.1 lr_policy: "step" gamma: 0.5 stepsize: 1 weight_decay: 0.01 max_iter: 3 `
	tests := []struct {
		name   string
		solver string
		want   [][]float64
	}{
		{"SGD", `type: "SGD" momentum: 0.9`, [][]float64{
			{0.4995, -0.4498, -0.4001, 0.2997, 0.1496, -1.0994, -0.3, -0.5},
			{0.49880025, -0.7993951, -1.09998995, 0.29928015, -0.2008348, -1.7983103, -0.86, -1.06},
			{0.498045775, -1.17633084, -1.85461591, 0.298827465, -0.578675911, -2.55187999, -1.464, -1.664}}},
		{"legacy solver_type", `solver_type: NESTEROV momentum: 0.9`, [][]float64{
			{0.49905, -0.67462, -0.85019, 0.29943, -0.07576, -1.54886, -0.66, -0.86},
			{0.498170903, -1.11381711, -1.72946332, 0.298902541, -0.516012028, -2.42690258, -1.364, -1.564},
			{0.497367656, -1.51511903, -2.5328704, 0.298420594, -0.918277839, -3.22918512, -2.0076, -2.2076}}},
		{"AdaGrad", `type: "AdaGrad"`, [][]float64{
			{0.4000002, -0.3, 1.99959993e-10, 0.200000333, 0.3, -0.7, -0.099999999, -0.299999999},
			{0.368765487, -0.33534826, -0.0353518035, 0.172265368, 0.264651723, -0.735351798, -0.170710677, -0.370710677},
			{0.356288834, -0.349778727, -0.0497839175, 0.161487875, 0.250221248, -0.74978391, -0.19957819, -0.39957819}}},
		{"RMSProp", `type: "RMSProp" rms_decay: 0.98`, [][]float64{
			{-0.207096781, -0.907106761, -0.607106771, -0.407090115, -0.307106761, -1.30710677, -1.31421351, -1.51421351},
			{-0.0706353134, -1.15801343, -0.858190197, -0.121469865, -0.558014274, -1.55818995, -1.81673241, -2.01673241},
			{-0.0473324683, -1.26094052, -0.961199554, -0.0796468027, -0.660941765, -1.66119919, -2.0229149, -2.2229149}}},
		{"AdaDelta", `type: "AdaDelta" momentum: 0.95 delta: 1e-6`, [][]float64{
			{0.499666667, -0.200447213, 0.0995527866, 0.299750864, 0.399552787, -0.600447213, 0.099105575, -0.100894425},
			{0.499498563, -0.200673668, 0.0993263314, 0.29962563, 0.399326332, -0.600673669, 0.0986526654, -0.101347335},
			{0.499413977, -0.200787859, 0.0992121403, 0.299562739, 0.399212141, -0.60078786, 0.0984242837, -0.101575716}}},
		{"Adam", `type: "Adam" momentum: 0.9 momentum2: 0.999`, [][]float64{
			{0.400006324, -0.299999987, 6.3232902e-09, 0.20001054, 0.300000013, -0.699999994, -0.0999999684, -0.299999968},
			{0.350602412, -0.34999946, -0.0499997306, 0.151496889, 0.250000539, -0.74999973, -0.199999957, -0.399999957},
			{0.326182613, -0.374998939, -0.0749994706, 0.12802199, 0.225001058, -0.77499947, -0.249999953, -0.449999953}}},
		{"L1", `type: "SGD" momentum: 0.9 regularization_type: "L1"`, [][]float64{
			{0.499, -0.449, -0.401, 0.299, 0.149, -1.099, -0.3, -0.5},
			{0.4976, -0.7976, -1.1014, 0.2976, -0.2024, -1.7976, -0.86, -1.06},
			{0.49609, -1.17359, -1.85651, 0.29609, -0.58091, -2.55109, -1.464, -1.664}}},
		{"clip_gradients", `type: "SGD" momentum: 0.9 clip_gradients: 1`, [][]float64{
			{0.4995, -0.229574567, 0.0403508666, 0.2997, 0.369825433, -0.658949133, 0.0523606933, -0.147639307},
			{0.49880025, -0.270964173, -0.0431280956, 0.29928015, 0.327596127, -0.741448446, -0.0143343362, -0.214334336},
			{0.498045775, -0.315590719, -0.133135663, 0.298827465, 0.282064211, -0.830399748, -0.0862696893, -0.286269689}}},
		// Two passes accumulate twice the (constant) gradient, which
		// normalisation divides by iter_size again: SGD's result.
		{"iter_size", `type: "SGD" momentum: 0.9 iter_size: 2`, [][]float64{
			{0.4995, -0.4498, -0.4001, 0.2997, 0.1496, -1.0994, -0.3, -0.5},
			{0.49880025, -0.7993951, -1.09998995, 0.29928015, -0.2008348, -1.7983103, -0.86, -1.06},
			{0.498045775, -1.17633084, -1.85461591, 0.298827465, -0.578675911, -2.55187999, -1.464, -1.664}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newLinearSolver(t, common+tc.solver)
			for iter, want := range tc.want {
				if err := s.Step(context.Background(), 1); err != nil {
					t.Fatal(err)
				}
				got := linearWeights(s)
				for i, w := range want {
					if d := math.Abs(float64(got[i]) - w); d > 2e-6*math.Max(1, math.Abs(w)) {
						t.Errorf("iteration %d, value %d: %.9g, want %.9g", iter, i, got[i], w)
					}
				}
			}
			if s.Iter() != 3 {
				t.Errorf("Iter() = %d, want 3", s.Iter())
			}
		})
	}
}

func TestSolverEvents(t *testing.T) {
	s := newLinearSolver(t, `type: "SGD" base_lr: 0.1 lr_policy: "step" gamma: 0.5 stepsize: 1 display: 2 average_loss: 2`)
	// The loss is the sum of the outputs: with the starting weights,
	// x·W^T + b summed = 0.9 + 0.35 + (-1.1) + (-0.65) ... worked out below.
	var events []StepEvent
	s.OnStep(func(e StepEvent) {
		if len(e.Outputs) != 1 || e.Outputs[0].Name != "ip" || e.Outputs[0].LossWeight != 1 || len(e.Outputs[0].Values) != 4 {
			t.Errorf("outputs %+v, want the 4 values of ip with loss weight 1", e.Outputs)
		}
		e.Outputs = nil
		events = append(events, e)
	})
	if err := s.Step(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 {
		t.Fatalf("%d events, want 3", len(events))
	}
	// Loss at iteration 0: sum over both samples and outputs of W x + b.
	// Sample 1: 0.5-0.4+0.3+0.1 = 0.5 and 0.3+0.8-1.8-0.1 = -0.8;
	// sample 2: -0.5-0.1+0.2+0.1 = -0.3 and -0.3+0.2-1.2-0.1 = -1.4.
	if math.Abs(float64(events[0].Loss)+2.0) > 1e-6 {
		t.Errorf("loss at iteration 0 = %g, want -2", events[0].Loss)
	}
	for i, e := range events {
		if e.Iter != i || e.LR != float32(0.1*math.Pow(0.5, float64(i))) || e.Display != (i%2 == 0) {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	if want := (events[1].Loss + events[2].Loss) / 2; math.Abs(float64(events[2].SmoothedLoss-want)) > 1e-5 {
		t.Errorf("smoothed loss %g, want the mean of the last two, %g", events[2].SmoothedLoss, want)
	}
	s.OnStep(func(StepEvent) { panic("boom") })
	if err := s.Step(context.Background(), 1); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a panicking handler gave %v", err)
	}
}

func TestSolverCancel(t *testing.T) {
	s := newLinearSolver(t, `type: "SGD" base_lr: 0.1 lr_policy: "fixed"`)
	ctx, cancel := context.WithCancel(context.Background())
	s.OnStep(func(e StepEvent) {
		if e.Iter == 1 {
			cancel()
		}
	})
	err := s.Step(ctx, 10)
	if !errors.Is(err, context.Canceled) || s.Iter() != 2 {
		t.Errorf("Step = %v after %d iterations, want context.Canceled after 2", err, s.Iter())
	}
}

func TestSolverDivergence(t *testing.T) {
	s := newLinearSolver(t, `type: "SGD" base_lr: 1e38 lr_policy: "fixed"`)
	err := s.Step(context.Background(), 5)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), `layer "ip"`) || !strings.Contains(err.Error(), "iteration 1") {
		t.Errorf("Step = %v, want divergence at iteration 1 naming layer ip", err)
	}
}

func TestSolverErrors(t *testing.T) {
	tests := []struct {
		name, solver, want string
	}{
		{"no policy", `type: "SGD"`, "no lr_policy"},
		{"bad type", `type: "sgd" lr_policy: "fixed"`, `did you mean "SGD"`},
		{"bad regularization", `lr_policy: "fixed" regularization_type: "L3"`, "regularization_type"},
		{"iter_size", `lr_policy: "fixed" iter_size: 0`, "iter_size"},
		{"hdf5", `lr_policy: "fixed" snapshot: 10 snapshot_format: HDF5`, "HDF5"},
		{"test_iter without test nets", `lr_policy: "fixed" test_iter: 5 test_net: "nope.prototxt"`, "nope.prototxt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			np, err := ParseNetParameter("linear.prototxt", []byte(linearNet))
			if err != nil {
				t.Fatal(err)
			}
			sp, err := ParseSolverParameter("solver.prototxt", []byte(tc.solver))
			if err != nil {
				t.Fatal(err)
			}
			sp.NetParam = np
			_, err = NewSolver(sp, SolverOptions{Dir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewSolver error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSolverHistory(t *testing.T) {
	s := newLinearSolver(t, `type: "Adam" base_lr: 0.1 lr_policy: "fixed" momentum: 0.9`)
	if err := s.Step(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	h := s.History()
	if h.Len() != 1 || len(h.Get("ip")) != 4 {
		t.Fatalf("History() = %v, want ip with 4 arrays (m and v of weights and bias)", h)
	}
	// The first moment of the bias after two steps of constant gradient 2:
	// m = 0.9*0.2 + 0.2 = 0.38.
	if m := h.Get("ip")[1].Data(); math.Abs(float64(m[0])-0.38) > 1e-6 {
		t.Errorf("bias first moment %g, want 0.38", m[0])
	}
	saved := h.Clone()
	t2 := newLinearSolver(t, `type: "Adam" base_lr: 0.1 lr_policy: "fixed" momentum: 0.9`)
	if err := t2.SetHistory(saved); err != nil {
		t.Fatal(err)
	}
	if err := t2.Net().SetWeights(s.Net().Weights()); err != nil {
		t.Fatal(err)
	}
	t2.SetIter(s.Iter())
	if err := s.Step(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := t2.Step(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if d := s.Net().Weights().MaxDiff(t2.Net().Weights()); d != 0 {
		t.Errorf("continuing from copied weights and history differs by %g", d)
	}
	bad := ndarray.NewWeightCollection()
	bad.Set("ip", ndarray.New(2, 3))
	if err := t2.SetHistory(bad); err == nil {
		t.Error("SetHistory accepted a collection with too few arrays")
	}
}

// writeFakeMNIST writes n 28×28 images with labels n%10, each image
// brighter where its label says, in MNIST's file layout (as both the
// training and the test set), and returns the folder.
func writeFakeMNIST(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	pix := make([]uint8, n*28*28)
	labels := make([]uint8, n)
	for i := 0; i < n; i++ {
		labels[i] = uint8(i % 10)
		for j := 0; j < 28*28; j++ {
			v := (i*31 + j*7) % 64
			if j/79 == int(labels[i]) {
				v += 150
			}
			pix[i*28*28+j] = uint8(v)
		}
	}
	for _, prefix := range []string{"train", "t10k"} {
		img := &data.IDX{Type: data.IDXUint8, Dims: []int{n, 28, 28}, Uint8: pix}
		lab := &data.IDX{Type: data.IDXUint8, Dims: []int{n}, Uint8: labels}
		if err := data.WriteIDXFile(filepath.Join(dir, prefix+"-images-idx3-ubyte"), img); err != nil {
			t.Fatal(err)
		}
		if err := data.WriteIDXFile(filepath.Join(dir, prefix+"-labels-idx1-ubyte"), lab); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mnistSoftmaxNet is a one-layer classifier over a Data layer.
const mnistSoftmaxNet = `
name: "softmax"
layer { name: "mnist" type: "Data" top: "data" top: "label" include { phase: TRAIN }
  transform_param { scale: 0.00390625 } data_param { source: "unset" batch_size: 8 } }
layer { name: "mnist" type: "Data" top: "data" top: "label" include { phase: TEST }
  transform_param { scale: 0.00390625 } data_param { source: "unset" batch_size: 10 } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 10 weight_filler { type: "xavier" } } }
layer { name: "accuracy" type: "Accuracy" bottom: "ip" bottom: "label" top: "accuracy" include { phase: TEST } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
`

func newMNISTSolver(t *testing.T, dir, solver string, prefix string) *Solver {
	t.Helper()
	np, err := ParseNetParameter("softmax.prototxt", []byte(mnistSoftmaxNet))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSolverParameter("solver.prototxt", []byte(solver))
	if err != nil {
		t.Fatal(err)
	}
	sp.NetParam = np
	s, err := NewSolver(sp, SolverOptions{Threads: 1, Seed: 7, DataSource: "mnist:" + dir, SnapshotPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSnapshotRestore checks that a run restored from a snapshot ends with
// the same weights, bit for bit, as the uninterrupted run.
func TestSnapshotRestore(t *testing.T) {
	mnist := writeFakeMNIST(t, 60)
	out := t.TempDir()
	const solver = `type: "Adam" base_lr: 0.01 momentum: 0.9 lr_policy: "multistep" gamma: 0.5
		stepvalue: 2 stepvalue: 4 weight_decay: 0.001 snapshot: 3 max_iter: 7
		test_iter: 2 test_interval: 2`
	a := newMNISTSolver(t, mnist, solver, filepath.Join(out, "a"))
	var snaps []SnapshotEvent
	a.OnSnapshot(func(e SnapshotEvent) { snaps = append(snaps, e) })
	if err := a.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 || snaps[0].Iter != 3 || snaps[1].Iter != 6 || snaps[2].Iter != 7 {
		t.Fatalf("snapshots %+v, want at iterations 3, 6 and 7 (after training)", snaps)
	}
	for _, f := range []string{"a_iter_3.caffemodel", "a_iter_3.solverstate", "a_iter_7.caffemodel"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*.tmp*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}

	b := newMNISTSolver(t, mnist, solver, filepath.Join(out, "b"))
	if err := b.Restore(snaps[0].SolverFile); err != nil {
		t.Fatal(err)
	}
	if b.Iter() != 3 || b.CurrentStep() != 1 {
		t.Errorf("restored at iteration %d, step %d; want 3, 1", b.Iter(), b.CurrentStep())
	}
	if err := b.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := a.Net().Weights().MaxDiff(b.Net().Weights()); d != 0 {
		t.Errorf("restored run's weights differ from the uninterrupted run's by %g", d)
	}
	if d := a.History().MaxDiff(b.History()); d != 0 {
		t.Errorf("restored run's history differs by %g", d)
	}

	// A snapshot of another solver type does not fit.
	c := newMNISTSolver(t, mnist, `type: "SGD" base_lr: 0.01 lr_policy: "fixed"`, filepath.Join(out, "c"))
	if err := c.Restore(snaps[0].SolverFile); err == nil || !strings.Contains(err.Error(), "history blobs") {
		t.Errorf("restoring Adam state into SGD: %v", err)
	}
}

// TestRestoreCaffeV1 restores a solver state Caffe wrote in 2014 (legacy
// 4-D history blobs, a weights file named without extension).
func TestRestoreCaffeV1(t *testing.T) {
	dir := sharedModels(t)
	mnist := writeFakeMNIST(t, 20)
	// The solver names examples/mnist/lenet_train_test.prototxt, found in
	// the mnist folder by base name.
	s, err := LoadSolverWith(filepath.Join(dir, "trained", "lenet_v1_solver.prototxt"),
		SolverOptions{Threads: 1, DataSource: "mnist:" + mnist, SearchDirs: []string{filepath.Join(dir, "mnist")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(filepath.Join(dir, "trained", "lenet_v1_iter_10000.solverstate")); err != nil {
		t.Fatal(err)
	}
	if s.Iter() != 10000 {
		t.Errorf("Iter() = %d, want 10000", s.Iter())
	}
	model, err := ReadCaffemodel(filepath.Join(dir, "trained", "lenet_v1_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ModelWeights(model)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Net().Weights()
	for _, name := range got.Layers() {
		for i, a := range got.Get(name) {
			if w := want[name][i].Data(); !equalFloats(a.Data(), w) {
				t.Errorf("layer %q blob %d differs from the caffemodel", name, i)
			}
		}
	}
	if h := s.History(); h.Norm() == 0 {
		t.Error("history is zero after restoring")
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLearningRateFromSolver(t *testing.T) {
	sp := &caffepb.SolverParameter{LrPolicy: proto.String("multistep"), BaseLr: proto.Float32(1),
		Gamma: proto.Float32(0.1), Stepvalue: []int32{1, 3}}
	for iter, want := range []float32{1, 0.1, 0.1, 0.01, 0.01} {
		if got, err := LearningRate(sp, iter); err != nil || math.Abs(float64(got-want)) > 1e-7 {
			t.Errorf("LearningRate(%d) = %g, %v; want %g", iter, got, err, want)
		}
	}
}

// TestSolverTestNets runs two test nets chosen by test_state stages.
func TestSolverTestNets(t *testing.T) {
	mnist := writeFakeMNIST(t, 30)
	net := strings.Replace(mnistSoftmaxNet, `include { phase: TEST } }`, `include { phase: TEST stage: "second" } }`, 1)
	np, err := ParseNetParameter("softmax.prototxt", []byte(net))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSolverParameter("solver.prototxt", []byte(`type: "SGD" base_lr: 0.1 lr_policy: "fixed"
		test_iter: 3 test_iter: 2 test_interval: 4 test_initialization: false
		test_state { stage: "first" } test_state { stage: "second" }`))
	if err != nil {
		t.Fatal(err)
	}
	sp.NetParam = np
	s, err := NewSolver(sp, SolverOptions{Threads: 1, DataSource: "mnist:" + mnist})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.TestNets()) != 2 {
		t.Fatalf("%d test nets, want 2", len(s.TestNets()))
	}
	var tests []TestEvent
	s.OnTest(func(e TestEvent) { tests = append(tests, e) })
	if err := s.Step(context.Background(), 9); err != nil {
		t.Fatal(err)
	}
	// Tests at iterations 4 and 8 (not 0: test_initialization false).
	if len(tests) != 4 || tests[0].Iter != 4 || tests[1].Result.Net != 1 || tests[3].Iter != 8 {
		t.Fatalf("tests %+v", tests)
	}
	// Only the second net has the accuracy layer.
	if _, ok := tests[0].Result.Get("accuracy"); ok {
		t.Error("the first test net reports accuracy")
	}
	if acc, ok := tests[1].Result.Get("accuracy"); !ok || acc < 0 || acc > 1 {
		t.Errorf("second test net accuracy %g, %v", acc, ok)
	}
	res, err := s.TestAll(context.Background())
	if err != nil || len(res) != 2 {
		t.Fatalf("TestAll = %v, %v", res, err)
	}
	// The test nets use the train net's weights: a fresh net given them
	// scores the same over the whole (3-batch) set.
	SetDataSources(np, "mnist:"+mnist)
	fresh, err := NewNet(np, NetOptions{State: &NetState{Phase: Test, Stages: []string{"first"}}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.SetWeights(s.Net().Weights()); err != nil {
		t.Fatal(err)
	}
	want, err := EvaluateNet(context.Background(), fresh, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res[0].Get("loss")
	if w, _ := want.Get("loss"); math.Abs(got-w) > 1e-6 {
		t.Errorf("test net 0 loss %g, a fresh net with the train net's weights gives %g", got, w)
	}
}

// TestRestoreCIFARV1 restores Caffe's CIFAR-10 quick solver state into
// the V1 net whose Data layers are replaced by MemoryData layers (as a
// worker fed from Go builds it).
func TestRestoreCIFARV1(t *testing.T) {
	dir := sharedModels(t)
	np, err := LoadNetParameter(filepath.Join(dir, "trained", "cifar10_quick_v1_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	sp := &caffepb.SolverParameter{NetParam: np, Type: proto.String("SGD"), BaseLr: proto.Float32(0.001),
		Momentum: proto.Float32(0.9), LrPolicy: proto.String("fixed")}
	var replaced []DataInput
	s, err := NewSolver(sp, SolverOptions{Threads: 1, Rewrite: func(np *caffepb.NetParameter, _ NetState) error {
		in, err := ReplaceDataLayers(np, 3, 32, 32)
		replaced = append(replaced, in...)
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The rewrite sees the whole definition: both Data layers, with their
	// include rules and the mean_file transform the feeder must apply.
	if len(replaced) != 2 || replaced[0].Transform.GetMeanFile() == "" || replaced[1].Include[0].GetPhase() != caffepb.Phase_TEST {
		t.Fatalf("replaced %+v, want the TRAIN and TEST data layers with their mean_file transform", replaced)
	}
	if err := s.Restore(filepath.Join(dir, "trained", "cifar10_quick_v1_iter_4000.solverstate")); err != nil {
		t.Fatal(err)
	}
	if s.Iter() != 4000 {
		t.Errorf("Iter() = %d, want 4000", s.Iter())
	}
	md := s.Net().MemoryDataLayers()
	if len(md) != 1 {
		t.Fatalf("%d MemoryData layers", len(md))
	}
	md[0].SetFeeder(func(data, label []float32) error {
		for i := range data {
			data[i] = float32(i%255) - 128
		}
		for i := range label {
			label[i] = float32(i % 10)
		}
		return nil
	})
	if err := s.Step(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptWeights checks that weights whose values do not fit their
// shape are refused with an error naming the layer.
func TestCorruptWeights(t *testing.T) {
	dir := sharedModels(t)
	model, err := ReadCaffemodel(filepath.Join(dir, "trained", "lenet_iter_10000.caffemodel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range model.Layer {
		if l.GetName() == "ip1" {
			l.Blobs[1].Data = l.Blobs[1].Data[:10]
		}
	}
	n, err := LoadNetPhase(filepath.Join(dir, "mnist", "lenet.prototxt"), Test)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.CopyFrom(model); err == nil || !strings.Contains(err.Error(), `"ip1"`) {
		t.Errorf("CopyFrom = %v, want an error naming ip1", err)
	}
}
