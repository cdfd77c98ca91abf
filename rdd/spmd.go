package rdd

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
)

// spmdEngine runs one worker per rank: rank r computes the partitions p
// with p mod size = r, then all ranks exchange results.
type spmdEngine struct {
	c *checkedComm
}

var _ commEngine = (*spmdEngine)(nil)

// NewSPMDEngine returns an engine over c, for Options.Engine. Every rank
// must run the same driver code: the same transformations and actions in
// the same order. Task results, broadcast values and shuffled elements
// cross ranks encoded with encoding/gob (see Register).
//
// Rank r owns worker r, and so partitions p with p mod Size() = r, which
// it caches. A partition that a task needs from another rank's worker
// (through Union or Coalesce) is computed again from lineage on the rank
// that needs it. Shuffle output is gathered on every rank.
//
// Every collective the engine makes (and every call through
// Context.Comm) first checks that all ranks make the same call. Ranks
// whose driver code diverged, such as one that returns early with an
// error of its own while the others run a job, abort the job with a
// message that says what each rank was doing, rather than hang. Errors
// that all ranks agree on, such as a task that failed on every attempt,
// are returned by the action on every rank, as under a local master.
//
// Close, on every rank, closes c (for MPI: finalizes it) once every rank
// has reached it.
func NewSPMDEngine(c Comm) Engine { return &spmdEngine{c: newCheckedComm(c)} }

func (e *spmdEngine) Name() string {
	return fmt.Sprintf("spmd[rank %d of %d]", e.c.Rank(), e.c.Size())
}
func (e *spmdEngine) Workers() int          { return e.c.Size() }
func (e *spmdEngine) Owns(w int) bool       { return w == e.c.Rank() }
func (e *spmdEngine) Comm() Comm            { return e.c }
func (e *spmdEngine) Agree(err error) error { return e.c.agree(err) }
func (e *spmdEngine) Close() error          { return e.c.close("", "") }
func (e *spmdEngine) CloseWith(note, detail string) error {
	return e.c.close(note, detail)
}
func (e *spmdEngine) gather(what string, data []byte) ([][]byte, error) {
	return e.c.allgather(what, data)
}
func (e *spmdEngine) exchange(what string, data [][]byte) ([][]byte, error) {
	return e.c.alltoall(what, data)
}

// taskResult is one task's outcome as sent to the other ranks.
type taskResult struct {
	Index int        // position in Job.Tasks
	Value []byte     // the encoded result, when Err is nil
	Err   *wireError // the failure
}

// rankReport is what a rank sends after running its tasks of a stage:
// the results, and for status reports its attempts and its worker.
type rankReport struct {
	Results  []taskResult
	Attempts []wireAttempt
	Status   *WorkerStatus
}

// wireError is an error as sent to the other ranks.
type wireError struct {
	Msg      string
	Sentinel int // 1 ErrCanceled, 2 ErrClosed, 3 ErrEmpty
	Task     bool
	Job      int
	Action   string
	Stage    int
	Part     int
	Attempts int
}

var sentinels = []error{nil, ErrCanceled, ErrClosed, ErrEmpty}

func toWire(err error) *wireError {
	w := &wireError{Msg: err.Error()}
	for i, s := range sentinels {
		if s != nil && errors.Is(err, s) {
			w.Sentinel = i
		}
	}
	var te *TaskError
	if errors.As(err, &te) {
		w.Task, w.Job, w.Action, w.Stage, w.Part, w.Attempts = true, te.Job, te.Action, te.Stage, te.Partition, te.Attempts
		w.Msg = te.Err.Error()
	}
	return w
}

func (w *wireError) error() error {
	err := error(&remoteError{msg: w.Msg, sentinel: sentinels[w.Sentinel]})
	if w.Task {
		err = &TaskError{Job: w.Job, Action: w.Action, Stage: w.Stage, Partition: w.Part, Attempts: w.Attempts, Err: err}
	}
	return err
}

// remoteError is an error decoded from another rank: it keeps the message
// and, where there was one, the sentinel it wrapped.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

func (e *spmdEngine) Run(ctx context.Context, job *Job) ([]any, error) {
	rank, size := e.c.Rank(), e.c.Size()
	var mine []taskResult
	failed := false
	for i, t := range job.Tasks {
		if t%size != rank {
			continue
		}
		if failed {
			// Tasks after a failure are skipped, as the local engine
			// does; every rank still agrees on the first failure.
			break
		}
		tr := taskResult{Index: i}
		v, err := job.Run(ctx, rank, t)
		if err == nil {
			tr.Value, err = encodeValue(v)
			if err != nil {
				err = fmt.Errorf("rdd: the result of partition %d (%T) cannot be sent to other ranks: %w (register its type with rdd.Register)", t, v, err)
			}
		}
		if err != nil {
			tr.Err, tr.Value, failed = toWire(err), nil, true
		}
		mine = append(mine, tr)
	}
	what := fmt.Sprintf("job %d (%s), stage %d", job.ID, job.Action, job.Stage)
	rep := rankReport{Results: mine}
	rep.Attempts, rep.Status = job.log.report()
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(rep); err != nil {
		// The results were encoded one by one already; failing here
		// is this rank's alone, and the others would wait for it.
		return nil, e.c.abort(fmt.Sprintf("rank %d: %s: encoding task results: %v", rank, what, err))
	}
	all, err := e.c.allgather(what, buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rdd: gathering task results: %w", err)
	}
	results := make([]any, len(job.Tasks))
	var first *wireError
	firstAt := len(job.Tasks)
	for r, payload := range all {
		var got rankReport
		if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&got); err != nil {
			return nil, e.c.abort(fmt.Sprintf("rank %d: %s: decoding the task results of rank %d: %v", rank, what, r, err))
		}
		if r != rank {
			job.log.receive(got.Attempts, got.Status)
		}
		for _, tr := range got.Results {
			if tr.Index < 0 || tr.Index >= len(job.Tasks) {
				return nil, e.c.abort(fmt.Sprintf("rank %d: %s: rank %d sent a result for task %d of %d", rank, what, r, tr.Index, len(job.Tasks)))
			}
			if tr.Err != nil {
				if tr.Index < firstAt {
					first, firstAt = tr.Err, tr.Index
				}
				continue
			}
			v, err := decodeValue(tr.Value)
			if err != nil {
				// Only this rank may fail to decode (a type registered
				// on some ranks only), so its answer would differ.
				return nil, e.c.abort(fmt.Sprintf("rank %d: %s: decoding the result of partition %d from rank %d: %v (register its type with rdd.Register on every rank)", rank, what, job.Tasks[tr.Index], r, err))
			}
			results[tr.Index] = v
		}
	}
	if first != nil {
		return nil, first.error()
	}
	return results, nil
}

func (e *spmdEngine) Broadcast(v any) (any, error) {
	var payload []byte
	if e.c.Rank() == 0 {
		b, err := encodeValue(v)
		if err != nil {
			payload = append([]byte{1}, fmt.Sprintf("rdd: the broadcast value (%T) cannot be sent to other ranks: %v (register its type with rdd.Register)", v, err)...)
		} else {
			payload = append([]byte{0}, b...)
		}
	}
	got, err := e.c.broadcast("Broadcast of a value from rank 0", 0, payload)
	if err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, e.c.abort(fmt.Sprintf("rank %d: empty broadcast from rank 0", e.c.Rank()))
	}
	if got[0] == 1 {
		return nil, errors.New(string(got[1:]))
	}
	if e.c.Rank() == 0 {
		return v, nil
	}
	d, err := decodeValue(got[1:])
	if err != nil {
		return nil, e.c.abort(fmt.Sprintf("rank %d: decoding a broadcast value from rank 0: %v (register its type with rdd.Register on every rank)", e.c.Rank(), err))
	}
	return d, nil
}

func (e *spmdEngine) SumFloat64(xs []float64) error {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	all, err := e.c.allgather(fmt.Sprintf("merging %d accumulators", len(xs)), b)
	if err != nil {
		return err
	}
	for i := range xs {
		xs[i] = 0
	}
	// Summing in rank order gives every rank the same bits.
	for r, p := range all {
		if len(p) != len(b) {
			return e.c.abort(fmt.Sprintf("rank %d: rank %d sent %d bytes of sums, this rank %d", e.c.Rank(), r, len(p), len(b)))
		}
		for i := range xs {
			xs[i] += math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
		}
	}
	return nil
}
