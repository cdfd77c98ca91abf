package rdd

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// localEngine runs each worker as a goroutine of this process, with a
// queue of work. A worker runs one piece of work at a time.
type localEngine struct {
	n      int
	queues []chan func()
	wg     sync.WaitGroup

	mu     sync.RWMutex // guards closed against sends on closed queues
	closed bool
}

// newLocalEngine starts n worker goroutines. Each may train a net, so
// the products' packing buffers are reserved for each (released by Close).
func newLocalEngine(n int) *localEngine {
	e := &localEngine{n: n, queues: make([]chan func(), n)}
	kernel.ReserveWorkspaces(n)
	for w := range e.queues {
		q := make(chan func(), 64)
		e.queues[w] = q
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			for f := range q {
				f()
			}
		}()
	}
	return e
}

func (e *localEngine) Name() string                 { return fmt.Sprintf("local[%d]", e.n) }
func (e *localEngine) Workers() int                 { return e.n }
func (e *localEngine) Owns(int) bool                { return true }
func (e *localEngine) Broadcast(v any) (any, error) { return v, nil }
func (e *localEngine) SumFloat64([]float64) error   { return nil }

func (e *localEngine) Run(ctx context.Context, job *Job) ([]any, error) {
	results := make([]any, len(job.Tasks))
	errs := make([]error, len(job.Tasks))
	byWorker := make([][]int, e.n)
	for i, t := range job.Tasks {
		w := t % e.n
		byWorker[w] = append(byWorker[w], i)
	}
	// After task i fails, tasks after it that have not started are
	// skipped, while those before it still run: so the error reported,
	// the first failure in task order, is the same on every run.
	var failed atomic.Int64
	failed.Store(int64(len(job.Tasks)))
	var wg sync.WaitGroup
	e.mu.RLock()
	if e.closed {
		e.mu.RUnlock()
		return nil, ErrClosed
	}
	for w, list := range byWorker {
		if len(list) == 0 {
			continue
		}
		wg.Add(1)
		e.queues[w] <- func() {
			defer wg.Done()
			for _, i := range list {
				if int64(i) > failed.Load() || ctx.Err() != nil {
					return
				}
				results[i], errs[i] = e.runOne(ctx, job, w, i)
				if errs[i] != nil {
					for {
						f := failed.Load()
						if int64(i) >= f || failed.CompareAndSwap(f, int64(i)) {
							break
						}
					}
				}
			}
		}
	}
	e.mu.RUnlock()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// runOne runs task i of job. Run guards its tasks; the recover here keeps
// a stray panic from killing the process.
func (e *localEngine) runOne(ctx context.Context, job *Job, w, i int) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, newPanicError("task", job.Tasks[i], -1, r)
		}
	}()
	return job.Run(ctx, w, job.Tasks[i])
}

func (e *localEngine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for _, q := range e.queues {
		close(q)
	}
	e.mu.Unlock()
	e.wg.Wait()
	kernel.ReserveWorkspaces(-e.n)
	return nil
}
