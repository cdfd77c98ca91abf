package sparknet

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// Trainer trains one Caffe net data-parallel over the partitions of a
// training RDD. Each partition gets a model replica — a solver with its own
// copy of the net — kept in the store of the worker that holds the
// partition, so replicas and their cached data stay put across rounds. K,
// the number of replicas, is the RDD's number of partitions.
//
// A round broadcasts the global weights, lets every replica run τ solver
// iterations on minibatches of its own partition, sums the replicas'
// weights in partition order and hands the sum to the outer optimizer
// (for SparkNet, the average). Results depend only on the seed and the
// partitioning, never on how tasks are scheduled.
//
// Learning-rate policies are driven by the global iteration count: the
// number of local iterations every replica has run, Iter(), which grows by
// τ per round. A replica's solver has exactly that iteration count, so
// "step", "inv" and the other policies see the same schedule as a single
// solver that ran Iter() iterations.
//
// A Trainer is safe for use by one goroutine at a time; rounds and tests
// run one after another.
type Trainer struct {
	sc    *rdd.Context
	train *rdd.RDD
	opts  Options
	key   string // prefix of this trainer's entries in the worker stores
	k     int

	sp         *caffepb.SolverParameter // the replicas' solver: train net inlined, Data layers replaced
	testNP     *caffepb.NetParameter    // the net Test runs, Data layers replaced
	inputs     []caffe.DataInput        // the train net's replaced Data layers
	testInputs []caffe.DataInput        // the test net's
	dir        string
	shape      [3]int // C, H, W of the samples
	driver     *caffe.Net
	weights    *ndarray.WeightCollection // views of the driver net's parameters: the global weights
	history    *ndarray.WeightCollection // averaged solver history (WeightsAndHistory), else nil
	outer      Outer
	outerState OuterState                // what the outer optimizer keeps across rounds
	pullAt     *ndarray.WeightCollection // an OuterPuller's center, which replicas pull toward before their next round
	bc         *rdd.Broadcast            // the round's message

	// sumResidual is what rounding the sum of compressed changes left
	// out, per value (Options.Compress with an Encoding); under an SPMD
	// engine each process keeps its piece current (rdd.EncodedPiece).
	sumResidual []float32

	mu     sync.Mutex
	round  int
	iter   int
	events []func(RoundEvent)
	steps  []func(StepEvent)
	// observers marks the subscriptions OnParallelize hooks made.
	observers observers
	// feed is what replica 0 reads to report its steps (the round holds
	// mu while it runs).
	feed    *stepFeed
	closed  bool
	release runtime.Cleanup // releases the replicas when t is collected

	// resumedFrom is the checkpoint Parallelize resumed from, or "".
	resumedFrom string
	// replaceOld lists the checkpoints of an earlier run under the prefix
	// (Options.Overwrite), removed before this run's first checkpoint.
	replaceOld []string
}

var trainerIDs atomic.Int64

// Parallelize makes a Trainer for the solver over a training RDD of
// samples (from rdd's MNIST, CIFAR10, ImageFolder, ... sources). The
// solver's train net must read its data through Data layers: they become
// inputs fed from each replica's partition, with their batch size and
// transform_param. Cache the RDD so partitions are read once.
//
// The global weights start as the solver's fillers make them with
// Options.Seed. Parallelize runs one job, which reads (and caches) the
// partitions and checks that their samples agree in shape.
func Parallelize(sc *rdd.Context, solver *caffepb.SolverParameter, train *rdd.RDD, opts Options) (*Trainer, error) {
	if sc == nil || solver == nil || train == nil {
		return nil, errors.New("sparknet: Parallelize needs a context, a solver and a training RDD")
	}
	if err := train.Err(); err != nil {
		return nil, fmt.Errorf("sparknet: training RDD: %w", err)
	}
	if !train.IsSamples() {
		return nil, fmt.Errorf("sparknet: the training RDD %s holds %s, not samples; make it with a data source such as sc.MNIST or sc.ParallelizeSamples", train.Name(), "plain elements")
	}
	o := opts.withDefaults()
	t := &Trainer{
		sc:    sc,
		train: train,
		opts:  o,
		key:   fmt.Sprintf("sparknet/trainer%d", trainerIDs.Add(1)),
		k:     train.NumPartitions(),
		dir:   o.Solver.Dir,
		outer: o.Outer,
		feed:  &stepFeed{},
	}
	if t.k == 0 {
		return nil, errors.New("sparknet: the training RDD has no partitions")
	}
	if c, ok := t.outer.(interface{ Check(k int) error }); ok {
		if err := guardOuter("Check", func() error { return c.Check(t.k) }); err != nil {
			return nil, err
		}
	}
	if err := o.Compress.check(); err != nil {
		return nil, fmt.Errorf("sparknet: Options.Compress: %w", err)
	}
	if o.Compress.Enabled() && o.Average != WeightsOnly {
		return nil, fmt.Errorf("sparknet: compressed averaging (%s) sends the weights only; it cannot average the solver history too (Average %s)", o.Compress, o.Average)
	}
	if err := t.sampleShape(); err != nil {
		return nil, err
	}
	if err := t.buildDefinitions(solver); err != nil {
		return nil, err
	}
	// The driver's net holds the global weights, initialised by the fillers.
	trainNP, err := caffe.TrainNetParameter(t.sp)
	if err != nil {
		return nil, fmt.Errorf("sparknet: %w", err)
	}
	t.driver, err = caffe.NewNet(trainNP, caffe.NetOptions{Threads: 1, Seed: o.Seed, Dir: t.dir})
	if err != nil {
		return nil, fmt.Errorf("sparknet: building the train net: %w", err)
	}
	t.weights = t.driver.Weights()
	// Every process holds the global weights alike (they come out of the
	// same reductions), so the round's message is not sent.
	t.bc = sc.BroadcastReplicated(t.message(0))
	// A trainer that is never closed gives its replicas back once nothing
	// refers to it: the replicas in the worker stores do not refer to it.
	t.release = runtime.AddCleanup(t, releaseReplicas, replicaRelease{sc: sc, key: t.key, bc: t.bc})
	if o.Checkpoint != "" {
		if err := t.claimCheckpoints(); err != nil {
			t.Close()
			return nil, err
		}
	}
	announce(t)
	return t, nil
}

// sampleShape reads the partitions (caching them if the RDD is cached) and
// records the samples' shape.
func (t *Trainer) sampleShape() error {
	res, err := t.train.RunPartitions(context.Background(), func(tc *rdd.TaskContext) (any, error) {
		s := tc.Samples()
		if s == nil {
			return nil, errors.New("partition holds no samples")
		}
		return []int{s.N, s.C, s.H, s.W}, nil
	})
	if err != nil {
		return fmt.Errorf("sparknet: reading the training RDD: %w", err)
	}
	for p, r := range res {
		v := r.([]int)
		if v[0] == 0 {
			return fmt.Errorf("sparknet: training partition %d is empty; use fewer partitions", p)
		}
		shape := [3]int{v[1], v[2], v[3]}
		if p == 0 {
			t.shape = shape
		} else if shape != t.shape {
			return fmt.Errorf("sparknet: training partition %d has samples of shape %v, partition 0 of %v", p, shape[:], t.shape[:])
		}
	}
	return nil
}

// buildDefinitions prepares the replicas' solver (its train net inlined,
// with Data layers turned into inputs) and the net Test runs.
func (t *Trainer) buildDefinitions(solver *caffepb.SolverParameter) error {
	sp := format.CloneSolver(solver)
	trainNP, err := caffe.TrainNetParameter(sp)
	if err != nil {
		return fmt.Errorf("sparknet: %w", err)
	}
	c, h, w := t.shape[0], t.shape[1], t.shape[2]
	if t.inputs, err = caffe.ReplaceDataLayers(trainNP, c, h, w); err != nil {
		return fmt.Errorf("sparknet: %w", err)
	}
	if len(t.inputs) == 0 {
		return errors.New("sparknet: the solver's train net has no Data layer to feed; give it a Data (or ImageData) layer with a batch_size (its source is not read: the RDD feeds it)")
	}
	// The test net: the solver's first test net, else the train net's
	// definition in the TEST phase.
	tests, err := caffe.TestNetParameters(sp)
	if err != nil {
		return fmt.Errorf("sparknet: %w", err)
	}
	var testNP *caffepb.NetParameter
	if len(tests) > 0 {
		testNP = tests[0]
	} else {
		if testNP, err = caffe.TrainNetParameter(sp); err != nil {
			return fmt.Errorf("sparknet: %w", err)
		}
		testNP.State = &caffepb.NetState{Phase: caffepb.Phase_TEST.Enum()}
	}
	if t.testInputs, err = caffe.ReplaceDataLayers(testNP, c, h, w); err != nil {
		return fmt.Errorf("sparknet: test net: %w", err)
	}
	t.testNP = testNP

	// Replicas train only: the trainer tests, snapshots and displays.
	sp.TrainNetParam = trainNP
	sp.TrainNet, sp.Net, sp.NetParam = nil, nil, nil
	sp.TestNet, sp.TestNetParam, sp.TestIter, sp.TestState = nil, nil, nil, nil
	sp.TestInterval = proto.Int32(0)
	sp.Snapshot = proto.Int32(0)
	sp.SnapshotAfterTrain = proto.Bool(false)
	sp.Display = proto.Int32(0)
	t.sp = sp
	return nil
}

// roundMessage is what a round broadcasts.
type roundMessage struct {
	Round   int
	Iter    int
	Tau     int
	Weights *ndarray.WeightCollection
	History *ndarray.WeightCollection // WeightsAndHistory only
	Pull    *ndarray.WeightCollection // an OuterPuller's center to pull toward first
}

func (t *Trainer) message(tau int) *roundMessage {
	return &roundMessage{Round: t.round, Iter: t.iter, Tau: tau, Weights: t.weights, History: t.history, Pull: t.pullAt}
}

// publish makes a message the one tasks read.
func (t *Trainer) publish(msg *roundMessage) error { return t.bc.SetReplicated(msg) }

// current returns the message published last, inside a task.
func (t *Trainer) current() *roundMessage { return t.bc.Value().(*roundMessage) }

// partStats is what a replica reports besides its weights after its τ
// iterations.
type partStats struct {
	Loss    float64 // sum of the iterations' losses
	Iters   int
	Seconds float64
	Encoded int64 // compressed averaging: the bytes of the replica's change
}

func init() {
	// Results cross processes under an SPMD engine.
	if err := rdd.Register(&partStats{}); err != nil {
		panic(err)
	}
	if err := rdd.Register(&testSums{}); err != nil {
		panic(err)
	}
}

// K returns the number of replicas (the training RDD's partitions).
func (t *Trainer) K() int { return t.k }

// Rounds returns the number of rounds run.
func (t *Trainer) RoundsDone() int { t.mu.Lock(); defer t.mu.Unlock(); return t.round }

// Iter returns the global iteration count: the iterations every replica
// has run, which drives the learning-rate policy.
func (t *Trainer) Iter() int { t.mu.Lock(); defer t.mu.Unlock(); return t.iter }

// Options returns the trainer's options, with defaults filled in.
func (t *Trainer) Options() Options { return t.opts }

// Net returns the driver's net, which holds the global weights: save it
// with SaveWeights, or inspect its blobs. Changing its weights changes the
// next round's starting point.
func (t *Trainer) Net() *caffe.Net { return t.driver }

// Weights returns the global weights. The arrays are views of the driver
// net's parameters and change with every round; Clone to keep a copy.
func (t *Trainer) Weights() *ndarray.WeightCollection { return t.weights }

// SetWeights replaces the global weights (for example with a pretrained
// model's).
func (t *Trainer) SetWeights(w *ndarray.WeightCollection) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.driver.SetWeights(w)
}

// Subscribe registers f to receive an event after every round; the
// returned function unsubscribes. Events are delivered on the goroutine
// that runs the round.
func (t *Trainer) Subscribe(f func(RoundEvent)) (unsubscribe func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, f)
	i := len(t.events) - 1
	t.observers.mark(&t.observers.events, i)
	// The unsubscribe function does not keep the trainer alive.
	w := weak.Make(t)
	return func() {
		if t := w.Value(); t != nil {
			t.mu.Lock()
			defer t.mu.Unlock()
			if i < len(t.events) {
				t.events[i] = nil
			}
		}
	}
}

// SubscribeSteps registers f to receive a StepEvent for every local
// iteration of replica 0. f runs on a worker goroutine while a round runs,
// so it must not call the trainer; the returned function unsubscribes.
func (t *Trainer) SubscribeSteps(f func(StepEvent)) (unsubscribe func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps = append(t.steps, f)
	i := len(t.steps) - 1
	t.observers.mark(&t.observers.steps, i)
	w := weak.Make(t)
	return func() {
		if t := w.Value(); t != nil {
			t.mu.Lock()
			defer t.mu.Unlock()
			if i < len(t.steps) {
				t.steps[i] = nil
			}
		}
	}
}

// Rounds runs n rounds, stopping early when ctx is cancelled or a round
// fails. With Options.Test set, the last round is always tested; with
// Options.Checkpoint, the last round is always checkpointed.
func (t *Trainer) Rounds(ctx context.Context, n int) error {
	if n > 0 {
		defer t.watch(n)()
	}
	for i := 0; i < n; i++ {
		if _, err := t.round1(ctx, i == n-1); err != nil {
			return err
		}
	}
	return nil
}

// RunTo runs rounds until rounds rounds are done in all, counting those a
// Resume restored: a script that calls RunTo(ctx, 100) and is restarted
// with Options.Resume after a failure ends with the weights of an
// uninterrupted run.
func (t *Trainer) RunTo(ctx context.Context, rounds int) error {
	return t.Rounds(ctx, rounds-t.RoundsDone())
}

// Round runs one round: broadcast, τ local iterations on every replica,
// reduce, outer step. It returns the round's event, which subscribers
// also receive.
func (t *Trainer) Round(ctx context.Context) (RoundEvent, error) {
	defer t.watch(0)()
	return t.round1(ctx, false)
}

func (t *Trainer) round1(ctx context.Context, last bool) (RoundEvent, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return RoundEvent{}, errors.New("sparknet: trainer is closed")
	}
	if err := ctx.Err(); err != nil {
		return RoundEvent{}, err
	}
	tau := t.opts.tauFor(t.round)
	t.feed.subs, t.feed.round, t.feed.tau = slices.Clone(t.steps), t.round+1, tau
	ev := RoundEvent{Round: t.round + 1, Tau: tau, Replicas: t.k}
	wbytes := t.weights.EncodedSize()
	if t.history != nil {
		wbytes += t.history.EncodedSize()
	}

	compressed := t.opts.Compress.Enabled()
	moved := 2 * int64(t.k) * int64(wbytes)

	// Broadcast. Compressed, what the replicas start from is the
	// compressed sum every process already holds, charged with the
	// collection below.
	start := time.Now()
	msg := t.message(tau)
	if err := t.publish(msg); err != nil {
		return ev, fmt.Errorf("sparknet: round %d: %w", ev.Round, err)
	}
	bcast := int64(t.k) * int64(wbytes)
	if compressed {
		bcast = 0
	}
	if err := t.injectCost(ctx, bcast); err != nil {
		return ev, err
	}
	comm := time.Since(start)

	// Local iterations, and the replicas' reports summed in partition
	// order: their weights, or compressed, their changes.
	start = time.Now()
	var sums []*ndarray.WeightCollection
	var values []any
	var reduceTime time.Duration
	if compressed {
		es, m, err := t.reduceCompressed(ctx)
		if err != nil {
			return ev, fmt.Errorf("sparknet: round %d: %w", ev.Round, err)
		}
		sums = []*ndarray.WeightCollection{t.compressedSum(es.Sum)}
		values, reduceTime, moved = es.Values, es.ReduceTime, m
	} else {
		ws, err := t.train.SumWeights(ctx, t.trainTask)
		if err != nil {
			return ev, fmt.Errorf("sparknet: round %d: %w", ev.Round, err)
		}
		sums, values, reduceTime = ws.Sums, ws.Values, ws.ReduceTime
	}
	compute := time.Since(start) - reduceTime

	// The outer step.
	start = time.Now()
	if err := t.injectCost(ctx, moved-bcast); err != nil {
		return ev, err
	}
	if err := t.reduce(sums); err != nil {
		return ev, fmt.Errorf("sparknet: round %d: %w", ev.Round, err)
	}
	comm += time.Since(start) + reduceTime

	var loss float64
	var iters int
	for _, v := range values {
		st := v.(*partStats)
		loss += st.Loss
		iters += st.Iters
	}
	t.round++
	t.iter += tau
	ev.Iter = t.iter
	ev.TrainLoss = loss / float64(max(iters, 1))
	ev.ComputeSeconds = compute.Seconds()
	ev.CommSeconds = comm.Seconds()
	ev.BytesMoved = moved
	if o := t.opts; o.Test != nil && (o.TestEvery > 0 && t.round%o.TestEvery == 0 || last) {
		res, err := t.test(ctx, o.Test)
		if err != nil {
			return ev, fmt.Errorf("sparknet: round %d: %w", ev.Round, err)
		}
		ev.Test = &res
	}
	t.emit(ev)
	if o := t.opts; o.Checkpoint != "" && (t.round%o.CheckpointEvery == 0 || last) {
		if err := t.removeOldCheckpoints(); err != nil {
			return ev, fmt.Errorf("sparknet: round %d: checkpoint: %w", ev.Round, err)
		}
		if _, err := t.snapshot(ctx, o.Checkpoint); err != nil {
			return ev, fmt.Errorf("sparknet: round %d: checkpoint: %w", ev.Round, err)
		}
	}
	return ev, nil
}

// reduce hands the sum of the replicas' weights to the outer optimizer
// and averages the solver history (WeightsAndHistory).
func (t *Trainer) reduce(sums []*ndarray.WeightCollection) error {
	sum := sums[0]
	if err := sum.Compatible(t.weights); err != nil {
		return err
	}
	if _, pulls := t.outer.(OuterPuller); pulls {
		// Replicas pull toward the center of this round before the next.
		t.pullAt = t.weights.Clone()
	}
	err := guardOuter("Step", func() error { return t.outer.Step(t.weights, sum, t.k, &t.outerState) })
	if err != nil {
		return fmt.Errorf("outer step (%s): %w", t.outer, err)
	}
	if t.opts.Average == WeightsAndHistory {
		t.history = sums[1].ScaleInPlace(1 / float32(t.k))
	}
	return nil
}

// injectCost sleeps for the configured latency plus bytes/bandwidth.
func (t *Trainer) injectCost(ctx context.Context, bytes int64) error {
	d := t.opts.Latency
	if t.opts.Bandwidth > 0 {
		d += time.Duration(float64(bytes) / t.opts.Bandwidth * float64(time.Second))
	}
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *Trainer) emit(ev RoundEvent) {
	for _, f := range t.events {
		if f != nil {
			f(ev)
		}
	}
}

// Close releases the broadcast and the replicas in the worker stores
// (about the net's size in weights, gradients, solver history and
// activations, per replica). A trainer that is not closed releases them
// once nothing refers to it any more and the garbage collector has run;
// sparknet-shell closes the trainers an input replaced.
func (t *Trainer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	t.release.Stop()
	releaseReplicas(replicaRelease{sc: t.sc, key: t.key, bc: t.bc})
	return nil
}

// replicaRelease is what releasing a trainer's replicas needs, without
// the trainer.
type replicaRelease struct {
	sc  *rdd.Context
	key string
	bc  *rdd.Broadcast
}

// releaseReplicas removes a trainer's entries from the stores of the
// workers this process holds (under an SPMD engine every rank removes its
// own: no job runs) and destroys its broadcast.
func releaseReplicas(r replicaRelease) {
	if r.bc != nil {
		r.bc.Destroy()
	}
	r.sc.DeleteStoreKeys(r.key + "/")
}

// String describes the trainer and where it stands.
func (t *Trainer) String() string {
	return fmt.Sprintf("sparknet.Trainer{net %s, %d replicas on %s, tau %d, %s of %s, %s minibatches, round %d, iteration %d}",
		t.driver.Name(), t.k, t.sc.Master(), t.opts.Tau, t.opts.Outer, t.opts.Average, t.opts.Order, t.round, t.iter)
}
