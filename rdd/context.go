package rdd

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultMaxAttempts is how many times a task is tried before its job
// fails, unless Options says otherwise.
const DefaultMaxAttempts = 4

// Options configures a Context.
type Options struct {
	// Master picks the engine: "local" (one worker), "local[N]" (N
	// workers) or "local[*]" (one per core). "" means "local[*]".
	Master string
	// Engine, when set, runs the tasks instead of an engine made from
	// Master; an SPMD engine over a communicator comes in this way.
	Engine Engine
	// MaxAttempts is how many times a task is tried; 0 means
	// DefaultMaxAttempts.
	MaxAttempts int
	// FailTask, when set, is called before every task attempt, and an
	// error it returns fails that attempt. Tests inject faults with it.
	FailTask func(TaskInfo) error
}

// TaskInfo identifies one attempt of one task.
type TaskInfo struct {
	Job       int
	Stage     int
	Partition int
	Worker    int
	Attempt   int // 1 for the first attempt
}

// Context is the entry point to RDDs: it owns the workers, the cached
// partitions and the per-worker stores, and runs jobs. It is safe for
// concurrent use, except that tasks and event subscribers must not run
// actions.
type Context struct {
	engine      Engine
	maxAttempts int
	failTask    func(TaskInfo) error
	workers     []*worker // nil for workers of other processes

	nextRDD, nextJob, nextStage, nextBroadcast atomic.Int64

	events eventBus

	accMu sync.Mutex
	accs  []*Accumulator

	mu      sync.Mutex
	closed  bool
	running map[int]context.CancelFunc // running jobs by ID
}

// worker is the state a worker keeps across jobs.
type worker struct {
	id    int
	store Store
	mu    sync.Mutex
	cache map[cacheKey]*cacheEntry
}

// NewContext returns a Context for master: "local", "local[N]" or
// "local[*]" ("" means "local[*]").
func NewContext(master string) (*Context, error) {
	return NewContextWith(Options{Master: master})
}

// NewContextWith returns a Context configured by o.
func NewContextWith(o Options) (*Context, error) {
	e := o.Engine
	if e == nil {
		n, err := parseMaster(o.Master)
		if err != nil {
			return nil, err
		}
		e = newLocalEngine(n)
	}
	if o.MaxAttempts < 0 {
		return nil, fmt.Errorf("rdd: MaxAttempts %d must not be negative (0 means %d)", o.MaxAttempts, DefaultMaxAttempts)
	}
	sc := &Context{engine: e, maxAttempts: o.MaxAttempts, failTask: o.FailTask, running: map[int]context.CancelFunc{}}
	if sc.maxAttempts == 0 {
		sc.maxAttempts = DefaultMaxAttempts
	}
	sc.workers = make([]*worker, e.Workers())
	for w := range sc.workers {
		if e.Owns(w) {
			sc.workers[w] = &worker{id: w, cache: map[cacheKey]*cacheEntry{}}
		}
	}
	return sc, nil
}

// parseMaster returns the number of local workers a master URL asks for.
func parseMaster(m string) (int, error) {
	switch {
	case m == "" || m == "local[*]":
		return runtime.NumCPU(), nil
	case m == "local":
		return 1, nil
	case strings.HasPrefix(m, "local[") && strings.HasSuffix(m, "]"):
		n, err := strconv.Atoi(m[len("local[") : len(m)-1])
		if err != nil || n < 1 {
			return 0, fmt.Errorf("rdd: master %q: the worker count must be a positive integer or *", m)
		}
		return n, nil
	}
	return 0, fmt.Errorf("rdd: unknown master %q (known: local, local[N], local[*]; other engines are passed in Options.Engine)", m)
}

// Master names the engine, such as "local[4]".
func (sc *Context) Master() string { return sc.engine.Name() }

// Workers is the number of workers; partition p lives on worker p mod
// Workers().
func (sc *Context) Workers() int { return sc.engine.Workers() }

// DefaultParallelism is the partition count used when a source is asked
// for 0 partitions: one per worker.
func (sc *Context) DefaultParallelism() int { return sc.engine.Workers() }

// MaxAttempts is how many times a task is tried before its job fails.
func (sc *Context) MaxAttempts() int { return sc.maxAttempts }

// Engine returns the engine that runs the tasks.
func (sc *Context) Engine() Engine { return sc.engine }

// workerOf is the worker that holds partition p.
func (sc *Context) workerOf(p int) int { return p % len(sc.workers) }

// Close cancels running jobs, stops the workers and drops their caches
// and stores. Actions on a closed Context return ErrClosed.
func (sc *Context) Close() error {
	sc.mu.Lock()
	if sc.closed {
		sc.mu.Unlock()
		return nil
	}
	sc.closed = true
	for _, cancel := range sc.running {
		cancel()
	}
	sc.mu.Unlock()
	err := sc.engine.Close()
	for _, w := range sc.workers {
		if w != nil {
			w.mu.Lock()
			w.cache = map[cacheKey]*cacheEntry{}
			w.mu.Unlock()
			w.store.Clear()
		}
	}
	return err
}

// CancelJobs cancels every running job; their actions return an error
// wrapping ErrCanceled. Tasks stop between elements only if they check
// TaskContext.Context, but no new task attempts start.
func (sc *Context) CancelJobs() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, cancel := range sc.running {
		cancel()
	}
}

// ResetWorker drops everything worker w holds, as if it had been lost and
// restarted: its cached partitions (rebuilt from lineage when next used)
// and its store. It is how tests exercise recovery.
func (sc *Context) ResetWorker(w int) error {
	if w < 0 || w >= len(sc.workers) {
		return fmt.Errorf("rdd: ResetWorker(%d): workers are 0 to %d", w, len(sc.workers)-1)
	}
	wk := sc.workers[w]
	if wk == nil {
		return nil
	}
	wk.mu.Lock()
	wk.cache = map[cacheKey]*cacheEntry{}
	wk.mu.Unlock()
	wk.store.Clear()
	return nil
}

// String describes the context.
func (sc *Context) String() string {
	return fmt.Sprintf("rdd.Context{master: %s, workers: %d}", sc.Master(), sc.Workers())
}
