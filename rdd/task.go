package rdd

import (
	"context"

	"github.com/sparknet-go/sparknet/data"
)

// TaskContext is what a task knows about itself and its worker. The
// compiled-Go entry points RunPartitions and RunWorkers hand it to their
// function.
type TaskContext struct {
	ctx  context.Context
	info TaskInfo
	w    *worker
	blk  *block
}

// Context is canceled when the job is abandoned (CancelJobs, a failed
// sibling task, or the context given to the action); long tasks should
// check it between minibatches.
func (tc *TaskContext) Context() context.Context { return tc.ctx }

// Info identifies the task attempt.
func (tc *TaskContext) Info() TaskInfo { return tc.info }

// Partition is the partition the task computes (for RunWorkers, the
// worker index).
func (tc *TaskContext) Partition() int { return tc.info.Partition }

// Attempt is 1 for the first attempt, 2 for the first retry, and so on.
func (tc *TaskContext) Attempt() int { return tc.info.Attempt }

// Worker is the worker the task runs on.
func (tc *TaskContext) Worker() int { return tc.info.Worker }

// Store is the worker's store, which keeps values across jobs.
func (tc *TaskContext) Store() *Store {
	if tc.w == nil {
		return nil
	}
	return &tc.w.store
}

// Samples is the partition's typed samples in an RDD of samples (shared
// with the cache: read only), or nil.
func (tc *TaskContext) Samples() *data.Samples {
	if tc.blk == nil {
		return nil
	}
	return tc.blk.Samples
}

// Elements is the partition's elements (shared with the cache: read
// only); samples are boxed as data.Sample values.
func (tc *TaskContext) Elements() []any {
	if tc.blk == nil {
		return nil
	}
	return tc.blk.elements()
}

// Len is the number of elements in the partition.
func (tc *TaskContext) Len() int {
	if tc.blk == nil {
		return 0
	}
	return tc.blk.Len()
}

// RunPartitions runs f once for every partition, on the worker that holds
// it, and returns f's results in partition order. Inside f,
// tc.Samples() (or tc.Elements()) is the partition, computed or taken
// from the cache, tc.Store() the worker's store, and tc.Context() is
// canceled when the job is abandoned. Failed attempts (errors or panics)
// are retried like any task.
func (r *RDD) RunPartitions(ctx context.Context, f func(tc *TaskContext) (any, error)) ([]any, error) {
	return r.runEach(ctx, "RunPartitions", f)
}

// runEach runs f once for every partition as the job named action, as
// RunPartitions does: a panic in f fails the attempt with the action's
// name and the partition, and failed attempts are retried.
func (r *RDD) runEach(ctx context.Context, action string, f func(tc *TaskContext) (any, error)) ([]any, error) {
	var out []any
	err := r.sc.runJob(ctx, action, r.nparts, func(j *jobState) error {
		var err error
		out, err = r.sc.runRDD(j, r, allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
			tc.blk = &b
			var v any
			var ferr error
			if err := call(action, tc.info.Partition, func() { v, ferr = f(tc) }); err != nil {
				return nil, err
			}
			return v, ferr
		})
		return err
	})
	return out, err
}

// RunWorkers runs f once on every worker (tc.Partition() is the worker
// index) and returns the results in worker order, for setting up or
// tearing down what workers keep in their stores.
func (sc *Context) RunWorkers(ctx context.Context, f func(tc *TaskContext) (any, error)) ([]any, error) {
	var out []any
	n := sc.Workers()
	err := sc.runJob(ctx, "RunWorkers", n, func(j *jobState) error {
		var err error
		out, err = sc.runStage(j, "workers", allPartitions(n), func(tc *TaskContext) (any, error) {
			var v any
			var ferr error
			if err := call("RunWorkers", tc.info.Partition, func() { v, ferr = f(tc) }); err != nil {
				return nil, err
			}
			return v, ferr
		})
		return err
	})
	return out, err
}
