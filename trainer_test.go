package sparknet

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// A small classifier on synthetic 1×4×4 images of three classes, with
// momentum, weight decay and the "inv" policy as LeNet's solver.
const testSolver = `
base_lr: 0.05 momentum: 0.9 weight_decay: 0.0005
lr_policy: "inv" gamma: 0.0001 power: 0.75
max_iter: 1000
net_param {
  name: "tiny"
  layer { name: "data" type: "Data" top: "data" top: "label"
          include { phase: TRAIN }
          transform_param { scale: 0.00390625 }
          data_param { source: "unused" batch_size: 8 } }
  layer { name: "data" type: "Data" top: "data" top: "label"
          include { phase: TEST }
          transform_param { scale: 0.00390625 }
          data_param { source: "unused" batch_size: 5 } }
  layer { name: "ip1" type: "InnerProduct" bottom: "data" top: "ip1"
          inner_product_param { num_output: 12
            weight_filler { type: "xavier" } bias_filler { type: "constant" } } }
  layer { name: "relu1" type: "ReLU" bottom: "ip1" top: "ip1" }
  layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
          inner_product_param { num_output: 3
            weight_filler { type: "xavier" } bias_filler { type: "constant" } } }
  layer { name: "accuracy" type: "Accuracy" bottom: "ip2" bottom: "label" top: "accuracy"
          include { phase: TEST } }
  layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label" top: "loss" }
}
`

func testSolverParam(t testing.TB, solverType string) *caffepb.SolverParameter {
	t.Helper()
	src := testSolver
	if solverType != "" {
		src = "type: \"" + solverType + "\"\n" + src
	}
	sp, err := caffe.ParseSolverParameter("tiny_solver.prototxt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if solverType == "Adam" {
		sp.Momentum = nil // Adam's beta1 defaults differently; keep Caffe's rules valid
		sp.Momentum = proto32(0.9)
		sp.BaseLr = proto32(0.01)
	}
	return sp
}

func proto32(v float32) *float32 { return &v }

// syntheticSamples makes n samples of three classes: class c lights up a
// quarter of the image, with noise.
func syntheticSamples(n int, seed uint64) *data.Samples {
	r := rand.New(rand.NewPCG(seed, 7))
	s := &data.Samples{N: n, C: 1, H: 4, W: 4, Pixels: make([]uint8, n*16), Labels: make([]float32, n)}
	for i := 0; i < n; i++ {
		c := r.IntN(3)
		s.Labels[i] = float32(c)
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				v := r.IntN(60)
				if (c == 0 && y < 2 && x < 2) || (c == 1 && y >= 2 && x >= 2) || (c == 2 && y < 2 && x >= 2) {
					v += 150
				}
				s.Pixels[i*16+y*4+x] = uint8(v)
			}
		}
	}
	return s
}

type fixture struct {
	sc    *rdd.Context
	train *rdd.RDD
	test  *rdd.RDD
}

func newFixture(t testing.TB, master string, parts int) *fixture {
	t.Helper()
	sc, err := rdd.NewContext(master)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	train := sc.ParallelizeSamples(syntheticSamples(480, 1), parts)
	test := sc.ParallelizeSamples(syntheticSamples(103, 2), 3)
	return &fixture{sc: sc, train: train.Cache(), test: test.Cache()}
}

func (f *fixture) trainer(t testing.TB, sp *caffepb.SolverParameter, o Options) *Trainer {
	t.Helper()
	tr, err := Parallelize(f.sc, sp, f.train, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestTrainerLearns(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	tr := f.trainer(t, testSolverParam(t, ""), Options{Tau: 5, Seed: 1})
	before, err := tr.Test(context.Background(), f.test)
	if err != nil {
		t.Fatal(err)
	}
	var events []RoundEvent
	tr.Subscribe(func(e RoundEvent) { events = append(events, e) })
	if err := tr.Rounds(context.Background(), 12); err != nil {
		t.Fatal(err)
	}
	after, err := tr.Test(context.Background(), f.test)
	if err != nil {
		t.Fatal(err)
	}
	if after.N != 103 {
		t.Errorf("tested %d samples, want all 103 (the last batch of a partition is short)", after.N)
	}
	if after.Accuracy < 0.9 || after.Loss >= before.Loss {
		t.Errorf("accuracy %.3f (loss %.3f → %.3f): the trainer did not learn", after.Accuracy, before.Loss, after.Loss)
	}
	if len(events) != 12 || events[11].Round != 12 || events[11].Iter != 60 || tr.Iter() != 60 {
		t.Fatalf("events %d, last %+v, iter %d", len(events), events[len(events)-1], tr.Iter())
	}
	if e := events[0]; e.Replicas != 2 || e.Tau != 5 || e.BytesMoved != 2*2*int64(tr.Weights().EncodedSize()) || e.TrainLoss <= 0 {
		t.Errorf("first event %+v", e)
	}
	if math.IsNaN(events[11].TrainLoss) || events[11].TrainLoss >= events[0].TrainLoss {
		t.Errorf("train loss did not fall: %v → %v", events[0].TrainLoss, events[11].TrainLoss)
	}
}

// The paper's loop written by hand with rdd and caffe — Broadcast,
// ForeachPartition to set the weights and run τ iterations, Map to fetch
// the weights, Reduce with Add, Scale by 1/K — must give the weights
// Round gives.
func TestRoundMatchesHandWrittenLoop(t *testing.T) {
	const k, tau, rounds = 3, 4, 3
	f := newFixture(t, "local[2]", k)
	sp := testSolverParam(t, "")
	tr := f.trainer(t, sp, Options{Tau: tau, Seed: 5})
	init := tr.Weights().Clone()
	if err := tr.Rounds(context.Background(), rounds); err != nil {
		t.Fatal(err)
	}

	// The hand-written version. One replica per partition, built as the
	// trainer documents: seed ReplicaSeed(seed, p), Data layers replaced
	// by inputs fed with sequential minibatches of the partition.
	parts, err := f.train.RunPartitions(context.Background(), func(tc *rdd.TaskContext) (any, error) {
		return tc.Samples(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	solvers := make([]*caffe.Solver, k)
	for p := range solvers {
		solvers[p] = handReplica(t, sp, parts[p].(*data.Samples), ReplicaSeed(5, p))
	}
	workers := f.sc.Parallelize([]any{0, 1, 2}, k)
	weights := init
	bc, err := f.sc.Broadcast(weights)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < rounds; r++ {
		if err := bc.Update(weights); err != nil {
			t.Fatal(err)
		}
		err := workers.ForeachPartition(func(it []any) {
			s := solvers[it[0].(int)]
			if err := s.Net().SetWeights(bc.Value().(*ndarray.WeightCollection)); err != nil {
				panic(err)
			}
			if err := s.Step(context.Background(), tau); err != nil {
				panic(err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := workers.Map(func(x any) any { return solvers[x.(int)].Net().Weights().Clone() }).
			Reduce(func(a, b any) any { return a.(*ndarray.WeightCollection).Add(b.(*ndarray.WeightCollection)) })
		if err != nil {
			t.Fatal(err)
		}
		weights = sum.(*ndarray.WeightCollection).Scale(1 / float32(k))
	}
	if d := weights.MaxDiff(tr.Weights()); d != 0 {
		t.Fatalf("Round() and the hand-written loop differ by %g", d)
	}
}

func handReplica(t *testing.T, sp *caffepb.SolverParameter, s *data.Samples, seed uint64) *caffe.Solver {
	t.Helper()
	var inputs []caffe.DataInput
	solver, err := caffe.NewSolver(sp, caffe.SolverOptions{Threads: 1, Seed: seed,
		Rewrite: func(np *caffepb.NetParameter, st caffe.NetState) error {
			var err error
			inputs, err = caffe.ReplaceDataLayers(np, s.C, s.H, s.W)
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if !solver.Net().Def().State.Includes(&caffepb.LayerParameter{Include: in.Include}) {
			continue
		}
		md, err := solver.Net().MemoryDataLayer(in.Layer)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := caffe.DataTransform(in.Transform, "", caffe.Train, int64(seed))
		if err != nil {
			t.Fatal(err)
		}
		b, err := data.NewBatcher(s, data.BatchOptions{Size: in.BatchSize, Seed: int64(seed), Transform: tr})
		if err != nil {
			t.Fatal(err)
		}
		md.SetFeeder(func(d, l []float32) error { return b.Next(d, l) })
	}
	return solver
}

func TestTrainerDeterministic(t *testing.T) {
	run := func(master string) *ndarray.WeightCollection {
		f := newFixture(t, master, 4)
		tr := f.trainer(t, testSolverParam(t, ""), Options{Tau: 3, Seed: 9, Order: data.Shuffle})
		if err := tr.Rounds(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
		return tr.Weights().Clone()
	}
	a, b, c := run("local[2]"), run("local[2]"), run("local[3]")
	if a.MaxDiff(b) != 0 || a.MaxDiff(c) != 0 {
		t.Fatalf("runs differ: %g between identical runs, %g with 3 workers", a.MaxDiff(b), a.MaxDiff(c))
	}
}

func TestResumeMatchesUninterruptedRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		typ  string
	}{
		{"average", Options{Tau: 3, Seed: 3}, ""},
		{"history", Options{Tau: 2, Seed: 3, Average: WeightsAndHistory, WarmupRounds: 1}, "Adam"},
		{"elastic", Options{Tau: 3, Seed: 3, Outer: ElasticAveraging(0.3)}, ""},
		{"nesterov", Options{Tau: 3, Seed: 3, Outer: OuterNesterov(0.7, 0.9), Order: data.Shuffle}, "Nesterov"},
		{"user outer", Options{Tau: 3, Seed: 3, Outer: &halfway{}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := testSolverParam(t, tc.typ)
			f := newFixture(t, "local[2]", 3)
			whole := f.trainer(t, sp, tc.opts)
			if err := whole.Rounds(context.Background(), 4); err != nil {
				t.Fatal(err)
			}

			first := f.trainer(t, sp, tc.opts)
			if err := first.Rounds(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			path, err := first.Snapshot(context.Background(), filepath.Join(t.TempDir(), "snap", "tiny"))
			if err != nil {
				t.Fatal(err)
			}
			first.Close()

			g := newFixture(t, "local[3]", 3) // a fresh context: nothing survives but the files
			second := g.trainer(t, sp, tc.opts)
			if err := second.Resume(context.Background(), path); err != nil {
				t.Fatal(err)
			}
			if second.Iter() != first.Iter() {
				t.Fatalf("resumed at iteration %d, snapshot at %d", second.Iter(), first.Iter())
			}
			if err := second.Rounds(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			if d := second.Weights().MaxDiff(whole.Weights()); d != 0 {
				t.Fatalf("resumed run differs from the uninterrupted one by %g", d)
			}
		})
	}
}

func TestResumeRejectsOtherSettings(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	sp := testSolverParam(t, "")
	tr := f.trainer(t, sp, Options{Tau: 3})
	if err := tr.Rounds(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	path, err := tr.Snapshot(context.Background(), filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	other := f.trainer(t, sp, Options{Tau: 4})
	if err := other.Resume(context.Background(), path); err == nil {
		t.Fatal("resuming with another tau must fail")
	}
}

func TestCommunicationCost(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	tr := f.trainer(t, testSolverParam(t, ""), Options{Tau: 1, Latency: 20 * time.Millisecond, Bandwidth: 1e6})
	ev, err := tr.Round(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Two transfers, each 20 ms plus K·size bytes at 1 MB/s.
	want := 2 * (0.020 + float64(2*tr.Weights().EncodedSize())/1e6)
	if ev.CommSeconds < want {
		t.Fatalf("comm %.4fs, want at least %.4fs", ev.CommSeconds, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Round(ctx); err == nil {
		t.Fatal("a cancelled round must fail")
	}
}

func TestParallelizeErrors(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	sp := testSolverParam(t, "")
	plain := f.sc.Parallelize([]any{1, 2, 3}, 2)
	cases := []struct {
		name  string
		train *rdd.RDD
		opts  Options
	}{
		{"plain elements", plain, Options{}},
		{"elastic alpha too large", f.train, Options{Outer: ElasticAveraging(1.5)}},
		{"outer nesterov momentum", f.train, Options{Outer: OuterNesterov(0.7, 1)}},
	}
	for _, c := range cases {
		if _, err := Parallelize(f.sc, sp, c.train, c.opts); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	noData := testSolverParam(t, "")
	noData.NetParam.Layer = noData.NetParam.Layer[2:]
	if _, err := Parallelize(f.sc, noData, f.train, Options{}); err == nil {
		t.Error("a net without Data layers: no error")
	}
}

// The same driver code on two SPMD ranks (goroutines over an in-process
// communicator) gives every rank the weights local[2] gives.
func TestTrainerSPMD(t *testing.T) {
	const k = 2
	run := func(sc *rdd.Context) (*ndarray.WeightCollection, TestResult, error) {
		train := sc.ParallelizeSamples(syntheticSamples(480, 1), k).Cache()
		test := sc.ParallelizeSamples(syntheticSamples(103, 2), 3).Cache()
		tr, err := Parallelize(sc, testSolverParam(t, ""), train, Options{Tau: 3, Seed: 4, Average: WeightsAndHistory})
		if err != nil {
			return nil, TestResult{}, err
		}
		defer tr.Close()
		if err := tr.Rounds(context.Background(), 3); err != nil {
			return nil, TestResult{}, err
		}
		res, err := tr.Test(context.Background(), test)
		return tr.Weights().Clone(), res, err
	}
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		t.Fatal(err)
	}
	want, wantRes, err := run(sc)
	sc.Close()
	if err != nil {
		t.Fatal(err)
	}

	comms, err := rdd.NewLocalComms(k)
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		w   *ndarray.WeightCollection
		res TestResult
		err error
	}
	outs := make([]out, k)
	done := make(chan int)
	for r, c := range comms {
		go func() {
			defer func() { done <- r }()
			sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
			if err != nil {
				outs[r].err = err
				return
			}
			defer sc.Close()
			outs[r].w, outs[r].res, outs[r].err = run(sc)
		}()
	}
	for range comms {
		<-done
	}
	for r, o := range outs {
		if o.err != nil {
			t.Fatalf("rank %d: %v", r, o.err)
		}
		if d := o.w.MaxDiff(want); d != 0 {
			t.Errorf("rank %d: weights differ from local[2] by %g", r, d)
		}
		if o.res.N != wantRes.N || o.res.Accuracy != wantRes.Accuracy {
			t.Errorf("rank %d: test %v, local[2] %v", r, o.res, wantRes)
		}
	}
}

func TestRoundEventsCarryTests(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	tr := f.trainer(t, testSolverParam(t, ""), Options{Tau: 2, Test: f.test, TestEvery: 2})
	var tested []int
	tr.Subscribe(func(e RoundEvent) {
		if e.Test != nil {
			tested = append(tested, e.Round)
			if e.Test.N != 103 {
				t.Errorf("round %d tested %d samples", e.Round, e.Test.N)
			}
		}
	})
	var steps int
	tr.SubscribeSteps(func(e StepEvent) { steps++ })
	if err := tr.Rounds(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	if len(tested) != 3 || tested[0] != 2 || tested[1] != 4 || tested[2] != 5 {
		t.Errorf("tested after rounds %v, want [2 4 5] (every 2nd and the last)", tested)
	}
	if steps != 10 {
		t.Errorf("%d step events from replica 0, want 5 rounds × τ 2", steps)
	}
}

// A run that checkpoints every 2 rounds and dies after round 3 continues,
// when started again with Resume, from round 2 to the weights of a run
// that never stopped.
func TestCheckpointAndResume(t *testing.T) {
	sp := testSolverParam(t, "")
	f := newFixture(t, "local[2]", 2)
	whole := f.trainer(t, sp, Options{Tau: 2, Seed: 8})
	if err := whole.RunTo(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "ckpt", "tiny")
	o := Options{Tau: 2, Seed: 8, Checkpoint: prefix, CheckpointEvery: 2}
	crashed := f.trainer(t, sp, o)
	for i := 0; i < 3; i++ {
		if _, err := crashed.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := LatestCheckpoint(prefix); filepath.Base(p) != "tiny_round_2.sparknet" {
		t.Fatalf("latest checkpoint %q, want tiny_round_2.sparknet", p)
	}
	o.Resume = true
	again := f.trainer(t, sp, o)
	if again.RoundsDone() != 2 {
		t.Fatalf("resumed at round %d, want 2", again.RoundsDone())
	}
	if err := again.RunTo(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	if d := again.Weights().MaxDiff(whole.Weights()); d != 0 {
		t.Fatalf("resumed run differs from the uninterrupted one by %g", d)
	}
	if p, _ := LatestCheckpoint(prefix); filepath.Base(p) != "tiny_round_5.sparknet" {
		t.Fatalf("after RunTo(5) the latest checkpoint is %q", p)
	}
	fresh := f.trainer(t, sp, Options{Tau: 2, Checkpoint: filepath.Join(t.TempDir(), "none"), Resume: true})
	if fresh.RoundsDone() != 0 {
		t.Fatal("resuming without checkpoints must start at round 0")
	}
}

// TestDivergenceStops checks that a diverging replica stops the round at
// once (another attempt would diverge again) with an error naming the
// round, the partition and the layer.
func TestDivergenceStops(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	sp := testSolverParam(t, "")
	sp.BaseLr = proto32(1e30)
	tr := f.trainer(t, sp, Options{Tau: 5, Seed: 1})
	err := tr.Rounds(context.Background(), 3)
	var te *rdd.TaskError
	if !errors.Is(err, caffe.ErrDiverged) || !errors.As(err, &te) || te.Attempts != 1 {
		t.Fatalf("got %v, want a divergence reported after one attempt", err)
	}
	for _, want := range []string{"round 1", "partition", "layer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name the %s", err, want)
		}
	}
}
