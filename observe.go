package sparknet

import (
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/rdd"
)

// newTrainerHooks are the functions OnParallelize registered.
var newTrainerHooks struct {
	sync.Mutex
	next int
	fs   map[int]func(*Trainer)
}

// OnParallelize registers f to be called with every Trainer that
// Parallelize makes from now on, once it is ready and before Parallelize
// returns it, so that a tool watching a whole context (a web UI, an
// event log) can subscribe to every trainer's rounds without the script's
// help. f runs on the goroutine that called Parallelize; it must return
// quickly and must not run rounds. A panic in f is recovered and ignored.
// What f subscribes observes in the background: it does not count as a
// subscriber for SetWatcher, so the shell still shows the progress of a
// run nobody else subscribed to.
// The returned function unregisters f.
func OnParallelize(f func(*Trainer)) (remove func()) {
	h := &newTrainerHooks
	h.Lock()
	defer h.Unlock()
	if h.fs == nil {
		h.fs = map[int]func(*Trainer){}
	}
	id := h.next
	h.next++
	h.fs[id] = f
	return func() {
		h.Lock()
		defer h.Unlock()
		delete(h.fs, id)
	}
}

// observers marks the subscriptions made by OnParallelize hooks: tools
// that watch in the background, which do not count as a display of the
// trainer's progress (see SetWatcher).
type observers struct {
	announcing    bool         // the hooks are running
	events, steps map[int]bool // indices in Trainer.events and Trainer.steps
}

// mark records subscription i in set when the hooks are running; t.mu is
// held.
func (o *observers) mark(set *map[int]bool, i int) {
	if !o.announcing {
		return
	}
	if *set == nil {
		*set = map[int]bool{}
	}
	(*set)[i] = true
}

// announce calls the OnParallelize hooks with t, in registration order.
func announce(t *Trainer) {
	h := &newTrainerHooks
	h.Lock()
	fs := make([]func(*Trainer), 0, len(h.fs))
	for id := 0; id < h.next; id++ {
		if f, ok := h.fs[id]; ok {
			fs = append(fs, f)
		}
	}
	h.Unlock()
	t.mu.Lock()
	t.observers.announcing = true
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.observers.announcing = false
		t.mu.Unlock()
	}()
	for _, f := range fs {
		func() {
			defer func() { recover() }()
			f(t)
		}()
	}
}

// Context returns the RDD context the trainer runs on.
func (t *Trainer) Context() *rdd.Context { return t.sc }

// SolverParameter returns a copy of the solver the replicas run: the
// solver given to Parallelize with its train net inlined and its Data
// layers turned into inputs. Its learning-rate settings give the schedule
// (caffe.LearningRate at Iter()).
func (t *Trainer) SolverParameter() *caffepb.SolverParameter {
	return proto.Clone(t.sp).(*caffepb.SolverParameter)
}
