package rdd

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// jobState is a running job.
type jobState struct {
	id     int
	action string
	ctx    context.Context
}

// runJob runs body as job action with its events: it registers the job
// for cancellation, emits JobStart and JobEnd, and merges accumulators
// afterwards. numTasks is the size of the final stage.
func (sc *Context) runJob(ctx context.Context, action string, numTasks int, body func(j *jobState) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	sc.mu.Lock()
	if sc.closed {
		sc.mu.Unlock()
		return fmt.Errorf("%w: cannot run %s", ErrClosed, action)
	}
	id := int(sc.nextJob.Add(1))
	jctx, cancel := context.WithCancel(ctx)
	sc.running[id] = cancel
	sc.mu.Unlock()
	defer func() {
		sc.mu.Lock()
		delete(sc.running, id)
		sc.mu.Unlock()
		cancel()
		sc.shuffles.dropJob(id)
	}()

	j := &jobState{id: id, action: action, ctx: jctx}
	start := time.Now()
	sc.events.emit(Event{Kind: JobStart, Time: start, Job: id, Action: action, NumTasks: numTasks})
	err := body(j)
	if serr := sc.syncAccumulators(); err == nil && serr != nil {
		err = serr
	}
	sc.events.emit(Event{Kind: JobEnd, Job: id, Action: action, NumTasks: numTasks, Duration: time.Since(start), Err: err})
	return err
}

// runRDD runs fn on partitions parts of r: it first computes the
// shuffles that those partitions read, then the final stage.
func (sc *Context) runRDD(j *jobState, r *RDD, parts []int, fn func(tc *TaskContext, b block) (any, error)) ([]any, error) {
	return sc.runPartitions(j, r, parts, func(tc *TaskContext) (any, error) {
		b, err := r.iterator(tc, tc.info.Partition)
		if err != nil {
			return nil, err
		}
		return fn(tc, b)
	})
}

// runPartitions is runRDD for a task that reads its partition itself
// (with r.iterator or r.iterate).
func (sc *Context) runPartitions(j *jobState, r *RDD, parts []int, fn func(tc *TaskContext) (any, error)) ([]any, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	if r.sc != sc {
		return nil, fmt.Errorf("rdd: %s belongs to another Context", r.label())
	}
	return sc.runTasks(j, r.label(), r, parts, fn)
}

// runStage runs fn as the tasks of one stage and returns their results
// in task order.
func (sc *Context) runStage(j *jobState, name string, tasks []int, fn func(tc *TaskContext) (any, error)) ([]any, error) {
	stage := int(sc.nextStage.Add(1))
	start := time.Now()
	sc.events.emit(Event{Kind: StageStart, Time: start, Job: j.id, Action: j.action, Stage: stage, StageName: name, NumTasks: len(tasks)})
	var log *stageLog
	if sc.spmd != nil {
		log = &stageLog{}
		if w := sc.workers[sc.Rank()]; w != nil {
			log.status = func() WorkerStatus { return sc.localStatus(w) }
		}
	}
	res, err := sc.engine.Run(j.ctx, &Job{ID: j.id, Action: j.action, Stage: stage, Tasks: tasks, log: log, Run: func(ctx context.Context, w, t int) (any, error) {
		return sc.runTask(ctx, j, stage, name, w, t, fn, log)
	}})
	if err != nil && !errors.Is(err, ErrCanceled) && j.ctx.Err() != nil {
		err = fmt.Errorf("%w: %s (job %d): %v", ErrCanceled, j.action, j.id, err)
	}
	if log != nil {
		sc.deliverRemote(j, stage, name, log)
	}
	sc.events.emit(Event{Kind: StageEnd, Job: j.id, Action: j.action, Stage: stage, StageName: name, NumTasks: len(tasks), Duration: time.Since(start), Err: err})
	return res, err
}

// runTask runs one task on worker w, retrying failed attempts.
func (sc *Context) runTask(ctx context.Context, j *jobState, stage int, name string, w, p int, fn func(tc *TaskContext) (any, error), log *stageLog) (any, error) {
	var last error
	for attempt := 1; attempt <= sc.maxAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: %s (job %d): partition %d not run: %v", ErrCanceled, j.action, j.id, p, err)
		}
		tc := &TaskContext{ctx: ctx, info: TaskInfo{Job: j.id, Stage: stage, StageName: name, Partition: p, Worker: w, Attempt: attempt}, w: sc.workers[w]}
		start := time.Now()
		sc.events.emit(Event{Kind: TaskStart, Time: start, Job: j.id, Action: j.action, Stage: stage, StageName: name, Partition: p, Worker: w, Attempt: attempt})
		v, err := sc.attempt(tc, fn)
		end := Event{Kind: TaskEnd, Job: j.id, Action: j.action, Stage: stage, StageName: name, Partition: p, Worker: w, Attempt: attempt, Duration: time.Since(start), Err: err}
		if lost, ok := v.(shuffleLost); ok {
			end.Err = fmt.Errorf("%w: shuffle %d (the task runs again once the map output is computed again)", errShuffleLost, lost.Shuffle)
		}
		sc.events.emit(end)
		log.add(p, w, attempt, start, end.Duration, end.Err)
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %s (job %d): partition %d: %v", ErrCanceled, j.action, j.id, p, err)
		}
		if !retryable(err) {
			return nil, &TaskError{Job: j.id, Action: j.action, Stage: stage, Partition: p, Attempts: attempt, Err: err}
		}
		last = err
	}
	return nil, &TaskError{Job: j.id, Action: j.action, Stage: stage, Partition: p, Attempts: sc.maxAttempts, Err: last}
}

// attempt runs one task attempt, turning a panic into an error. What it
// adds to accumulators counts only if it succeeds.
func (sc *Context) attempt(tc *TaskContext, fn func(tc *TaskContext) (any, error)) (v any, err error) {
	adds := beginAttempt()
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, newPanicError("task", tc.info.Partition, -1, r)
		}
		_, lost := v.(shuffleLost)
		adds.end(err == nil && !lost)
	}()
	if sc.failTask != nil {
		if err := sc.failTask(tc.info); err != nil {
			return nil, err
		}
	}
	return fn(tc)
}

// allPartitions lists 0..n-1.
func allPartitions(n int) []int {
	ps := make([]int, n)
	for i := range ps {
		ps[i] = i
	}
	return ps
}
