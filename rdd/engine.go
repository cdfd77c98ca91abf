package rdd

import "context"

// Engine runs a Context's tasks. The local engine runs worker goroutines
// in this process; an SPMD engine runs one worker per process (an MPI
// rank, say), where every process runs the same driver code and so builds
// the same lineage and starts the same jobs in the same order.
//
// Partition (task) p belongs to worker p mod Workers(). An engine runs the
// tasks of the workers this process owns, on those workers, and then
// makes every task's result known to every process, so that every process
// returns the same answer from an action.
type Engine interface {
	// Name describes the engine, such as "local[4]".
	Name() string
	// Workers is the number of workers holding partitions.
	Workers() int
	// Owns reports whether worker w runs in this process.
	Owns(w int) bool
	// Run runs job.Run(ctx, w, t) for every task t in job.Tasks that
	// belongs to a worker this process owns, on that worker; tasks of one
	// worker run one after another. It returns the results of all tasks in
	// the order of job.Tasks, the same on every process, or the error of a
	// failed task (the same on every process): the failure of the first
	// failing task in job.Tasks order. After a task fails, tasks after it
	// that have not started may be skipped.
	Run(ctx context.Context, job *Job) ([]any, error)
	// Broadcast returns v as given on the first process, on every
	// process. Every process calls it with its own v.
	Broadcast(v any) (any, error)
	// SumFloat64 replaces xs with its elementwise sum over all processes.
	SumFloat64(xs []float64) error
	// Close stops the engine's workers.
	Close() error
}

// commEngine is an Engine whose processes are the ranks of a
// communicator, as an SPMD engine's are.
type commEngine interface {
	Engine
	// Comm returns the communicator, which checks that every rank makes
	// the same calls.
	Comm() Comm
	// Agree tells every rank whether this one failed; see Context.Agree.
	Agree(err error) error
	// CloseWith is Close, with a note for every rank saying why this
	// one closes early, such as a panic, and a detail for this rank's
	// own message, such as the stack ("" for a normal close).
	CloseWith(note, detail string) error
	// gather returns every rank's data, checking that every rank
	// makes the same call (what).
	gather(what string, data []byte) ([][]byte, error)
	// exchange sends data[r] to rank r and returns what each rank
	// sent to this one (an all-to-all exchange).
	exchange(what string, data [][]byte) ([][]byte, error)
}

// Job is one stage's tasks, as handed to an Engine.
type Job struct {
	ID     int    // job ID
	Action string // the action that started the job, such as "Count"
	Stage  int    // stage ID
	Tasks  []int  // task (partition) indices, ascending
	// Run runs task t on worker w (t mod Workers()); ctx is canceled when
	// the job is abandoned.
	Run func(ctx context.Context, w, t int) (any, error)

	// log collects this process's task attempts for the other processes
	// of an SPMD job, and theirs for this one; nil under a local engine.
	log *stageLog
}
