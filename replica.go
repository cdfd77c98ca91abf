package sparknet

import (
	"errors"
	"fmt"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// replica is one partition's model: a solver whose train net is fed from
// the partition's samples. It lives in the store of the partition's
// worker.
type replica struct {
	solver   *caffe.Solver
	batchers []*data.Batcher           // one per fed input
	weights  *ndarray.WeightCollection // views of the solver's net
	history  *ndarray.WeightCollection // views of the solver's state
	loss     float64                   // losses of the current round's iterations
	iters    int
	residual []float32 // compressed averaging: what the replica has not sent yet (error feedback)
	send     []float32 // compressed averaging: the change sent this round
}

// stepFeed is what replica 0 needs to report its steps: the subscribers
// and the round being run, set by the trainer before each round's tasks
// start.
type stepFeed struct {
	subs       []func(StepEvent)
	round, tau int
}

// ReplicaSeed is the seed of partition p's replica: its layers' random
// numbers and its minibatch order derive from it.
func ReplicaSeed(seed uint64, p int) uint64 { return seed + 1000003*uint64(p+1) }

func (t *Trainer) replicaKey(p int) string { return fmt.Sprintf("%s/replica/%d", t.key, p) }

// newReplica builds partition p's replica over its samples.
func (t *Trainer) newReplica(p int, s *data.Samples) (*replica, error) {
	seed := ReplicaSeed(t.opts.Seed, p)
	so := t.opts.Solver
	so.Threads = t.opts.Threads
	so.Seed = seed
	so.Rewrite = nil
	so.DataSource = ""
	solver, err := caffe.NewSolver(t.sp, so)
	if err != nil {
		return nil, err
	}
	r := &replica{solver: solver}
	net := solver.Net()
	// Nobody looks at a replica's activations: its fused convolutions
	// need not write the outputs that only their poolings read.
	net.SetKeepTops(false)
	for i, in := range t.inputs {
		if !net.Def().State.Includes(&caffepb.LayerParameter{Include: in.Include}) {
			continue
		}
		b, err := feed(net, in, s, t.dir, t.opts.Order, int64(seed)+int64(i), caffe.Train)
		if err != nil {
			return nil, err
		}
		r.batchers = append(r.batchers, b)
	}
	// The replica lives in a worker store: it refers to the trainer's
	// step feed, not to the trainer, so that a trainer nobody uses any
	// more can be collected and its replicas released.
	feed := t.feed
	solver.OnStep(func(e caffe.StepEvent) {
		r.loss += float64(e.Loss)
		r.iters++
		if p == 0 && len(feed.subs) > 0 {
			se := StepEvent{Round: feed.round, Step: r.iters, Tau: feed.tau, Iter: e.Iter + 1, Loss: float64(e.Loss)}
			for _, f := range feed.subs {
				if f != nil {
					f(se)
				}
			}
		}
	})
	r.weights = net.Weights()
	if t.opts.Average == WeightsAndHistory {
		// Only then: a solver whose history is handed out writes its
		// parameters' diffs at every step (caffe.Solver.History).
		r.history = solver.History()
	}
	return r, nil
}

// feed connects a MemoryData layer that replaced a Data layer to a
// batcher over the samples, with the layer's transform_param.
func feed(net *caffe.Net, in caffe.DataInput, s *data.Samples, dir string, order data.Order, seed int64, phase caffe.Phase) (*data.Batcher, error) {
	md, err := net.MemoryDataLayer(in.Layer)
	if err != nil {
		return nil, err
	}
	tr, err := caffe.DataTransform(in.Transform, dir, phase, seed)
	if err != nil {
		return nil, fmt.Errorf("layer %q: %w", in.Layer, err)
	}
	b, err := data.NewBatcher(s, data.BatchOptions{Size: in.BatchSize, Order: order, Seed: seed, Transform: tr})
	if err != nil {
		return nil, fmt.Errorf("layer %q: %w", in.Layer, err)
	}
	next := func(d, l []float32) error {
		if len(l) == 0 {
			l = nil
		}
		return b.Next(d, l)
	}
	if order == data.RandomWindows {
		// A call draws a window: a batch is one call.
		md.SetFeeder(next)
	} else {
		// The next k samples are a batch's next k, called in pieces or
		// whole.
		md.SetFeederInPieces(next)
	}
	return b, nil
}

// trainTask runs one round on one partition and reports the replica's
// weights (and solver history, when that is averaged too) for the sum.
func (t *Trainer) trainTask(tc *rdd.TaskContext) (rdd.PartitionWeights, error) {
	p := tc.Partition()
	v, err := tc.Store().GetOrCreate(t.replicaKey(p), func() (any, error) { return t.newReplica(p, tc.Samples()) })
	if err != nil {
		return rdd.PartitionWeights{}, err
	}
	r := v.(*replica)
	msg := t.current()
	puller, pulls := t.outer.(OuterPuller)
	switch {
	case !pulls || msg.Round == 0 && r.solver.Iter() == 0:
		if err := r.solver.Net().SetWeights(msg.Weights); err != nil {
			return rdd.PartitionWeights{}, err
		}
	case msg.Pull != nil:
		// The replica keeps its weights and is pulled toward the center
		// of the round before (EASGD).
		puller.Pull(r.weights, msg.Pull)
	}
	if msg.History != nil {
		if err := r.solver.SetHistory(msg.History); err != nil {
			return rdd.PartitionWeights{}, err
		}
	}
	r.solver.SetIter(msg.Iter)
	r.loss, r.iters = 0, 0
	start := time.Now()
	if err := r.solver.Step(tc.Context(), msg.Tau); err != nil {
		err = fmt.Errorf("partition %d: %w", p, err)
		if errors.Is(err, caffe.ErrDiverged) {
			// The same weights and batches would diverge again.
			err = rdd.NoRetry(err)
		}
		return rdd.PartitionWeights{}, err
	}
	stats := &partStats{Loss: r.loss, Iters: r.iters, Seconds: time.Since(start).Seconds()}
	ws := []*ndarray.WeightCollection{r.weights}
	if t.opts.Average == WeightsAndHistory {
		ws = append(ws, r.history)
	}
	return rdd.PartitionWeights{Weights: ws, Value: stats}, nil
}
