package rdd

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
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
	// workers) or "local[*]" (one per core), or a registered master
	// such as "mpi" (one worker per MPI rank, in binaries built with
	// -tags mpi). "" means "local[*]".
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
	// ShuffleMemory is how many bytes of shuffle output this process
	// keeps in memory; beyond it, map outputs are written to files in
	// LocalDir. 0 means DefaultShuffleMemory; a negative value writes
	// every map output to a file.
	ShuffleMemory int64
	// LocalDir is where shuffle spill files go, in a folder of their
	// own that Close removes; "" means the system's temporary folder.
	LocalDir string
}

// TaskInfo identifies one attempt of one task.
type TaskInfo struct {
	Job       int
	Stage     int
	StageName string // what the stage computes, such as "Map[4]" or "shuffle 1 of Map[3]"
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
	spmd        commEngine // the engine, when it runs over a communicator
	maxAttempts int
	failTask    func(TaskInfo) error
	workers     []*worker // nil for workers of other processes
	shuffles    *shuffleStore

	nextRDD, nextJob, nextStage, nextBroadcast, nextShuffle atomic.Int64

	events eventBus
	status statusState

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
// "local[*]" ("" means "local[*]"), or a registered master such as "mpi"
// (see RegisterMaster and Masters).
func NewContext(master string) (*Context, error) {
	return NewContextWith(Options{Master: master})
}

// NewContextWith returns a Context configured by o.
func NewContextWith(o Options) (*Context, error) {
	if o.MaxAttempts < 0 {
		return nil, fmt.Errorf("rdd: MaxAttempts %d must not be negative (0 means %d)", o.MaxAttempts, DefaultMaxAttempts)
	}
	e := o.Engine
	if e == nil {
		var err error
		if e, err = newEngine(o.Master); err != nil {
			return nil, err
		}
	}
	budget := o.ShuffleMemory
	switch {
	case budget == 0:
		budget = DefaultShuffleMemory
	case budget < 0:
		budget = 0
	}
	sc := &Context{engine: e, maxAttempts: o.MaxAttempts, failTask: o.FailTask, running: map[int]context.CancelFunc{},
		shuffles: newShuffleStore(budget, o.LocalDir)}
	sc.spmd, _ = e.(commEngine)
	if sc.maxAttempts == 0 {
		sc.maxAttempts = DefaultMaxAttempts
	}
	sc.workers = make([]*worker, e.Workers())
	for w := range sc.workers {
		if e.Owns(w) {
			wk := &worker{id: w, cache: map[cacheKey]*cacheEntry{}}
			wk.store.shared = wk.cachedMemory
			sc.workers[w] = wk
		}
	}
	return sc, nil
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

// Rank is this process's rank in an SPMD job, such as an MPI rank; it is
// 0 under a local master.
func (sc *Context) Rank() int {
	if sc.spmd == nil {
		return 0
	}
	return sc.spmd.Comm().Rank()
}

// IsDriver reports whether this process is the one that talks to the
// user: rank 0 of an SPMD job, or the only process under a local master.
// Every rank runs the same driver code, but only the driver prints:
//
//	n, err := r.Count() // on every rank
//	if sc.IsDriver() {
//		fmt.Println(n, err)
//	}
func (sc *Context) IsDriver() bool { return sc.Rank() == 0 }

// Comm returns the communicator of an SPMD job, or nil under a local
// master, where every worker is in this process. Its collectives check,
// as the engine's do, that every rank makes the same call; a trainer
// sums weights over the ranks with AllreduceWeights(sc.Comm(), w).
func (sc *Context) Comm() Comm {
	if sc.spmd == nil {
		return nil
	}
	return sc.spmd.Comm()
}

// Agree is for code that fails on some ranks only, such as reading a
// file that one node lacks: every rank calls it with its own error (or
// nil), and it returns that error. Under an SPMD engine, when some ranks
// failed and others did not, it aborts the job with every failure's
// message instead, since the ranks' driver code would diverge from here.
// Under a local master it returns err.
func (sc *Context) Agree(err error) error {
	if sc.spmd == nil {
		return err
	}
	return sc.spmd.Agree(err)
}

// workerOf is the worker that holds partition p.
func (sc *Context) workerOf(p int) int { return p % len(sc.workers) }

// Close cancels running jobs, stops the workers and drops their caches
// and stores. Actions on a closed Context return ErrClosed.
//
// Under an SPMD engine Close is collective: every rank must call it, and
// once all have, the communicator is closed (MPI is finalized, so a
// process can hold one "mpi" Context). A rank that closes while the
// others still run jobs aborts the job, with a message naming what each
// rank was doing, instead of waiting forever. When Close is deferred
// directly (defer sc.Close()) and runs because the rank panics, it aborts
// the job with the panic and its stack in the message and then panics
// again, so that a failure on one rank ends the job at once.
func (sc *Context) Close() error {
	if sc.spmd != nil {
		if p := recover(); p != nil {
			stack := string(debug.Stack())
			sc.closeSPMD(fmt.Sprintf("panic: %v%s", p, panicSite(stack)), stack)
			panic(p)
		}
	}
	return sc.closeSPMD("", "")
}

// panicSite returns " (FILE:LINE)" for the function that panicked, read
// from a stack taken while panicking, or "".
func panicSite(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") && i+3 < len(lines) {
			loc := strings.TrimSpace(lines[i+3]) // after panic's own frame and the function
			if j := strings.LastIndex(loc, " +0x"); j >= 0 {
				loc = loc[:j]
			}
			return " (" + filepath.Base(loc) + ")"
		}
	}
	return ""
}

// closeSPMD is Close, with a note for the other ranks and a detail for
// this rank's message when it closes early.
func (sc *Context) closeSPMD(note, detail string) error {
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
	var err error
	if sc.spmd != nil {
		err = sc.spmd.CloseWith(note, detail)
	} else {
		err = sc.engine.Close()
	}
	for _, w := range sc.workers {
		if w != nil {
			w.mu.Lock()
			w.cache = map[cacheKey]*cacheEntry{}
			w.mu.Unlock()
			w.store.Clear()
		}
	}
	if serr := sc.shuffles.close(); err == nil && serr != nil {
		err = fmt.Errorf("rdd: removing shuffle spill files: %w", serr)
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
// restarted: its cached partitions and the shuffle output its map tasks
// wrote (both rebuilt from lineage when next used) and its store. It is
// how tests exercise recovery.
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
	sc.shuffles.dropWorker(w)
	return nil
}

// DeleteStoreKeys removes the keys that start with prefix from the stores
// of the workers this process holds (every worker under a local master,
// this rank's under an SPMD engine) and returns how many it removed. It
// runs no job, so it is not collective: any goroutine may call it at any
// time, such as a cleanup that releases what an object no longer in use
// kept on the workers.
func (sc *Context) DeleteStoreKeys(prefix string) int {
	n := 0
	for _, w := range sc.workers {
		if w == nil {
			continue
		}
		for _, k := range w.store.Keys() {
			if strings.HasPrefix(k, prefix) {
				w.store.Delete(k)
				n++
			}
		}
	}
	return n
}

// ShuffleStats describes the shuffle output this process holds: how much
// is in memory and how much was spilled to disk.
func (sc *Context) ShuffleStats() ShuffleStats { return sc.shuffles.stats() }

// String describes the context.
func (sc *Context) String() string {
	return fmt.Sprintf("rdd.Context{master: %s, workers: %d}", sc.Master(), sc.Workers())
}
