package caffe

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/internal/alloctest"
)

// stepTestNet has what the in-pass step must get right beside plain
// layers: two inner products sharing their weights (the gradient of both
// added, the update after the lower one), a transposed inner product, an
// inner product whose weights do not learn (lr_mult 0, no gradient), a
// branch that does not lead to the loss (its parameters get no gradient
// and are updated with the decay alone), a convolution and L1-sized
// parameters of a few values.
const stepTestNet = `
name: "steps"
layer { name: "in" type: "Input" top: "data" top: "label"
  input_param { shape { dim: 6 dim: 2 dim: 6 dim: 6 } shape { dim: 6 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: "xavier" } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "a" type: "InnerProduct" bottom: "conv" top: "a"
  param { name: "shared" } param { lr_mult: 2 }
  inner_product_param { num_output: 8 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "t" type: "InnerProduct" bottom: "a" top: "t"
  inner_product_param { num_output: 8 transpose: true weight_filler { type: "gaussian" std: 0.2 } } }
layer { name: "frozen" type: "InnerProduct" bottom: "t" top: "f"
  param { lr_mult: 0 } param { lr_mult: 1 decay_mult: 0 }
  inner_product_param { num_output: 64 weight_filler { type: "gaussian" std: 0.1 } bias_filler { type: "constant" value: 0.5 } } }
layer { name: "back" type: "Reshape" bottom: "f" top: "fr" reshape_param { shape { dim: 6 dim: 4 dim: 4 dim: 4 } } }
layer { name: "b" type: "InnerProduct" bottom: "fr" top: "b"
  param { name: "shared" } param { lr_mult: 2 }
  inner_product_param { num_output: 8 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "side" type: "InnerProduct" bottom: "t" top: "side"
  inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "out" type: "InnerProduct" bottom: "b" top: "out"
  inner_product_param { num_output: 5 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "out" bottom: "label" top: "loss" }
`

// wideStepNet has an inner product whose weights (1024×1040 values) are
// large enough for the backward pass that reads them once and updates
// them as it goes (kernel.FCBackward), below and above another layer
// whose input gradient it must compute.
const wideStepNet = `
name: "wide"
layer { name: "in" type: "Input" top: "data" top: "label"
  input_param { shape { dim: 6 dim: 1040 } shape { dim: 6 } } }
layer { name: "pre" type: "InnerProduct" bottom: "data" top: "pre"
  inner_product_param { num_output: 1040 weight_filler { type: "gaussian" std: 0.03 } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu" type: "ReLU" bottom: "pre" top: "pre" }
layer { name: "wide" type: "InnerProduct" bottom: "pre" top: "wide"
  inner_product_param { num_output: 1024 weight_filler { type: "gaussian" std: 0.03 } bias_filler { type: "constant" value: 0.1 } } }
layer { name: "relu2" type: "ReLU" bottom: "wide" top: "wide" }
layer { name: "out" type: "InnerProduct" bottom: "wide" top: "out"
  inner_product_param { num_output: 5 weight_filler { type: "gaussian" std: 0.1 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "out" bottom: "label" top: "loss" }
`

// stepSolver builds a solver of type typ on net np (its Input blobs
// filled with fixed values, its MemoryData layers fed synthetic batches).
func stepSolver(t *testing.T, np *caffepb.NetParameter, typ string, threads int, edit func(*caffepb.SolverParameter)) *Solver {
	t.Helper()
	sp := &caffepb.SolverParameter{
		NetParam: proto.Clone(np).(*caffepb.NetParameter), Type: proto.String(typ), BaseLr: proto.Float32(0.01),
		WeightDecay: proto.Float32(5e-4), LrPolicy: proto.String("step"), Gamma: proto.Float32(0.5), Stepsize: proto.Int32(2),
	}
	switch typ {
	case "SGD", "Nesterov":
		sp.Momentum = proto.Float32(0.9)
	case "AdaDelta":
		sp.Momentum, sp.Delta, sp.BaseLr = proto.Float32(0.95), proto.Float32(1e-6), proto.Float32(1)
	case "Adam":
		sp.Momentum, sp.Momentum2 = proto.Float32(0.9), proto.Float32(0.999)
	case "RMSProp":
		sp.RmsDecay = proto.Float32(0.98)
	}
	if edit != nil {
		edit(sp)
	}
	s, err := NewSolver(sp, SolverOptions{Threads: threads, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	feedSynthetic(s, 11, -0.3, 5)
	return s
}

// solverState returns copies of the weights, gradients and history of
// every learnable parameter.
func solverState(s *Solver) [][]float32 {
	var st [][]float32
	for k, b := range s.net.learnable {
		st = append(st, append([]float32(nil), b.DataSlice()...), append([]float32(nil), b.DiffSlice()...))
		for _, h := range s.histSlices[k] {
			st = append(st, append([]float32(nil), h...))
		}
	}
	return st
}

// TestInPassStepExact checks that iterations which clear and update the
// parameters within the backward pass leave the weights, the gradients
// and the history of every parameter as clearing, running forward and
// backward and then updating does, to the bit, for every built-in update
// rule, on one and two threads (CIFAR-10 quick's convolutions writing
// their weight gradients on the row and direct paths, the wide net's
// large inner products computing their gradients in one pass over the
// weights); and that iter_size > 1 and clip_gradients take the plain
// iteration.
func TestInPassStepExact(t *testing.T) {
	custom, err := ParseNetParameter("steps.prototxt", []byte(stepTestNet))
	if err != nil {
		t.Fatal(err)
	}
	lenet, err := LoadNetParameter(filepath.Join(sharedModels(t), "mnist", "lenet_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReplaceDataLayers(lenet, 1, 28, 28); err != nil {
		t.Fatal(err)
	}
	cifar, err := LoadNetParameter(filepath.Join(sharedModels(t), "cifar10", "cifar10_quick_train_test.prototxt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReplaceDataLayers(cifar, 3, 32, 32); err != nil {
		t.Fatal(err)
	}
	wide, err := ParseNetParameter("wide.prototxt", []byte(wideStepNet))
	if err != nil {
		t.Fatal(err)
	}
	nets := []struct {
		name string
		np   *caffepb.NetParameter
	}{{"custom", custom}, {"lenet", lenet}, {"cifar", cifar}, {"wide", wide}}
	l1 := func(sp *caffepb.SolverParameter) { sp.RegularizationType = proto.String("L1") }
	cases := []struct {
		typ    string
		name   string
		edit   func(*caffepb.SolverParameter)
		inPass bool
	}{
		{"SGD", "SGD", nil, true},
		{"SGD", "SGD-L1", l1, true},
		{"Nesterov", "Nesterov", nil, true},
		{"AdaGrad", "AdaGrad", nil, true},
		{"RMSProp", "RMSProp", nil, true},
		{"AdaDelta", "AdaDelta", nil, true},
		{"Adam", "Adam-L1", l1, true},
		{"SGD", "SGD-iter_size", func(sp *caffepb.SolverParameter) { sp.IterSize = proto.Int32(2) }, false},
		{"SGD", "SGD-clip", func(sp *caffepb.SolverParameter) { sp.ClipGradients = proto.Float32(0.5) }, false},
	}
	for _, nt := range nets {
		for _, c := range cases {
			for _, threads := range []int{1, 2} {
				if nt.name == "lenet" && c.name != "SGD" && (c.name != "Adam-L1" || threads == 1) {
					continue // the custom net covers the rules; LeNet its layers
				}
				if nt.name == "cifar" && c.name != "SGD" {
					continue // its first convolution's row path, its chained groups
				}
				if nt.name == "wide" && c.name != "SGD" && c.name != "Adam-L1" {
					continue // the SGD step and a rule's, from the gradient's buffer
				}
				t.Run(fmt.Sprintf("%s/%s/threads=%d", nt.name, c.name, threads), func(t *testing.T) {
					var states [2][][]float32
					for mode, inPass := range []bool{false, true} {
						inPassSteps = inPass
						s := stepSolver(t, nt.np, c.typ, threads, c.edit)
						if got := s.inPassStep(); got != (inPass && c.inPass) {
							t.Fatalf("inPassStep() = %v", got)
						}
						if err := s.Step(context.Background(), 4); err != nil {
							t.Fatal(err)
						}
						states[mode] = solverState(s)
					}
					inPassSteps = true
					for i := range states[0] {
						for j := range states[0][i] {
							if math.Float32bits(states[0][i][j]) != math.Float32bits(states[1][i][j]) {
								t.Fatalf("array %d (weights, gradient, history of each parameter), value %d: %v after plain iterations, %v after in-pass ones",
									i, j, states[0][i][j], states[1][i][j])
							}
						}
					}
				})
			}
		}
	}
}

// TestInPassFusedNoAllocs checks that in-pass iterations of the wide net,
// whose inner products take the one-pass backward (kernel.FCBackward),
// allocate nothing once running, on one goroutine and on two.
func TestInPassFusedNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	wide, err := ParseNetParameter("wide.prototxt", []byte(wideStepNet))
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		s := stepSolver(t, wide, "SGD", threads, nil)
		ctx := context.Background()
		if err := s.Step(ctx, 2); err != nil {
			t.Fatal(err)
		}
		allocs, sites := alloctest.Count(3, func() {
			if e := s.Step(ctx, 1); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("an in-pass iteration of the wide net on %d goroutines allocates %v times, want 0:%s", threads, allocs, alloctest.String(sites))
		}
	}
}

// TestDeferredDiff checks the SGD step that leaves the large inner
// products' weight diffs deferred to the history (Blob.deferDiff): that it
// defers them, and that every way of observing a diff sees the values
// that writing it gives, bit for bit, whenever it is observed (between
// steps, through a view taken before the steps, in a net's proto with
// diffs), and after the history changes (SetHistory, the views History
// returns), on one and two threads.
func TestDeferredDiff(t *testing.T) {
	wide, err := ParseNetParameter("wide.prototxt", []byte(wideStepNet))
	if err != nil {
		t.Fatal(err)
	}
	// plains are the solvers whose steps are plain iterations, which write
	// the diffs; the others update within the backward pass.
	plains := map[*Solver]bool{}
	defer func() { inPassSteps = true }()
	step := func(t *testing.T, s *Solver, n int) {
		t.Helper()
		inPassSteps = !plains[s]
		if err := s.Step(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		inPassSteps = true
	}
	same := func(t *testing.T, what string, want, got []float32) {
		t.Helper()
		if len(want) != len(got) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
		}
		for i := range want {
			if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
				t.Fatalf("%s, value %d: %v, written %v", what, i, got[i], want[i])
			}
		}
	}
	// pair returns a solver whose steps write the diffs (the plain
	// iterations) and one that may defer them.
	pair := func(t *testing.T, threads int) (plain, s *Solver) {
		plain = stepSolver(t, wide, "SGD", threads, nil)
		plains[plain] = true
		return plain, stepSolver(t, wide, "SGD", threads, nil)
	}
	deferred := func(s *Solver) int {
		n := 0
		for _, b := range s.net.learnable {
			if b.diffDeferred() {
				n++
			}
		}
		return n
	}
	for _, threads := range []int{1, 2} {
		// pre and wide (1040×1040 and 1024×1040 weights, the one-pass
		// backward), and on one thread out (5×1024, its gradient
		// computed into a buffer too; on two, beside its input gradient
		// into the diff).
		wantDeferred := 2
		if threads == 1 {
			wantDeferred = 3
		}
		t.Run(fmt.Sprintf("between-steps/threads=%d", threads), func(t *testing.T) {
			plain, s := pair(t, threads)
			for round := range 3 {
				step(t, plain, 2)
				step(t, s, 2)
				if round == 0 {
					if n := deferred(s); n != wantDeferred {
						t.Fatalf("%d diffs deferred after the steps, want %d", n, wantDeferred)
					}
				}
				want, got := solverState(plain), solverState(s)
				for i := range want {
					same(t, fmt.Sprintf("round %d, array %d (weights, gradient, history of each parameter)", round, i), want[i], got[i])
				}
			}
		})
		t.Run(fmt.Sprintf("view-before/threads=%d", threads), func(t *testing.T) {
			plain, s := pair(t, threads)
			var views [][]float32
			for _, b := range s.net.learnable {
				views = append(views, b.Diff().Data())
			}
			step(t, plain, 3)
			step(t, s, 3)
			if n := deferred(s); n != 0 {
				t.Fatalf("%d diffs deferred after their storage was handed out", n)
			}
			for k, b := range plain.net.learnable {
				same(t, fmt.Sprintf("parameter %d's diff through a view taken before the steps", k), b.DiffSlice(), views[k])
			}
		})
		t.Run(fmt.Sprintf("proto/threads=%d", threads), func(t *testing.T) {
			plain, s := pair(t, threads)
			step(t, plain, 2)
			step(t, s, 2)
			want, got := plain.net.ToProto(true), s.net.ToProto(true)
			for i, lp := range want.Layer {
				for j, bp := range lp.Blobs {
					same(t, fmt.Sprintf("layer %q blob %d diff in ToProto", lp.GetName(), j), bp.Diff, got.Layer[i].Blobs[j].Diff)
				}
			}
			step(t, plain, 1)
			step(t, s, 1)
			if n := deferred(s); n != wantDeferred {
				t.Fatalf("%d diffs deferred after ToProto and a step, want %d (ToProto does not keep them)", n, wantDeferred)
			}
			want, got = plain.net.ToProto(true), s.net.ToProto(true)
			for i, lp := range want.Layer {
				for j, bp := range lp.Blobs {
					same(t, fmt.Sprintf("layer %q blob %d diff in ToProto after another step", lp.GetName(), j), bp.Diff, got.Layer[i].Blobs[j].Diff)
				}
			}
			for _, b := range s.net.learnable {
				b.ZeroDiff()
				same(t, "a diff after ZeroDiff", make([]float32, b.Count()), b.DiffSlice())
			}
		})
		t.Run(fmt.Sprintf("set-history/threads=%d", threads), func(t *testing.T) {
			plain, s := pair(t, threads)
			step(t, plain, 2)
			step(t, s, 2)
			// A history of its own (0.5 everywhere) into both, as the
			// trainer's averaged history arrives: the diffs keep the
			// update of the last step.
			h := plain.historyCollection()
			for _, name := range h.Layers() {
				for _, a := range h.Get(name) {
					a.Fill(0.5)
				}
			}
			if err := s.SetHistory(h); err != nil {
				t.Fatal(err)
			}
			for k, b := range plain.net.learnable {
				same(t, fmt.Sprintf("parameter %d's diff after SetHistory", k), b.grad(), s.net.learnable[k].grad())
			}
			step(t, plain, 2)
			step(t, s, 2)
			want, got := solverState(plain), solverState(s)
			for i := range want {
				same(t, fmt.Sprintf("array %d after SetHistory and two steps", i), want[i], got[i])
			}
		})
		t.Run(fmt.Sprintf("history-views/threads=%d", threads), func(t *testing.T) {
			plain, s := pair(t, threads)
			step(t, plain, 2)
			step(t, s, 2)
			for _, solver := range []*Solver{plain, s} {
				h := solver.History()
				for _, name := range h.Layers() {
					for _, a := range h.Get(name) {
						a.Fill(-0.25)
					}
				}
			}
			for k, b := range plain.net.learnable {
				same(t, fmt.Sprintf("parameter %d's diff after a write through History", k), b.grad(), s.net.learnable[k].grad())
			}
			step(t, plain, 1)
			step(t, s, 1)
			if n := deferred(s); n != 0 {
				t.Fatalf("%d diffs deferred after History handed the history out", n)
			}
			want, got := solverState(plain), solverState(s)
			for i := range want {
				same(t, fmt.Sprintf("array %d after a write through History and a step", i), want[i], got[i])
			}
		})
	}
}
