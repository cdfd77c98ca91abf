package rdd

import (
	"fmt"
	"sync"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

// The event kinds. Every start is followed by its end. ShuffleWritten
// and ShuffleFetched come after the stage that wrote or the exchange that
// moved a shuffle's output; they have no start.
const (
	JobStart EventKind = iota
	JobEnd
	StageStart
	StageEnd
	TaskStart
	TaskEnd
	// ShuffleWritten follows a shuffle's map stage: Shuffle is its ID,
	// StageName the stage, NumTasks the map tasks that ran, Records the
	// elements written, Bytes their size (estimated in memory, exact on
	// disk) and Spilled the bytes written to spill files.
	ShuffleWritten
	// ShuffleFetched follows an exchange of a shuffle's buckets between
	// the ranks of an SPMD job: Bytes received, Sent bytes sent, and
	// Records the partitions this rank asked for.
	ShuffleFetched
)

func (k EventKind) String() string {
	switch k {
	case JobStart:
		return "JobStart"
	case JobEnd:
		return "JobEnd"
	case StageStart:
		return "StageStart"
	case StageEnd:
		return "StageEnd"
	case TaskStart:
		return "TaskStart"
	case TaskEnd:
		return "TaskEnd"
	case ShuffleWritten:
		return "ShuffleWritten"
	case ShuffleFetched:
		return "ShuffleFetched"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event reports the start or end of a job, a stage or a task attempt, for
// progress displays and logs. Fields that do not apply to a kind are zero.
type Event struct {
	Kind EventKind
	Time time.Time // when it happened

	Job    int    // job ID (all kinds)
	Action string // the action that started the job, such as "Count"

	Stage     int    // stage ID (stage and task events)
	StageName string // what the stage computes, such as "Map[4]"
	NumTasks  int    // tasks in the job's final stage, or in the stage

	Partition int // task events: the partition computed
	Worker    int // task events: the worker it ran on
	Attempt   int // task events: 1 for the first attempt

	Duration time.Duration // end events: time since the matching start; shuffle events: time taken
	Err      error         // end events: the failure, or nil

	Shuffle int   // shuffle events: the shuffle's ID
	Records int64 // shuffle events: elements written, or partitions fetched
	Bytes   int64 // shuffle events: bytes written or received
	Spilled int64 // ShuffleWritten: bytes written to spill files
	Sent    int64 // ShuffleFetched: bytes sent to other ranks

	// Remote marks a task event that happened in another process of an
	// SPMD job (Worker is that rank's worker). Each rank sends its task
	// attempts with its results, so every rank delivers the other ranks'
	// task events when the stage ends, before StageEnd, with the times
	// they had where they ran.
	Remote bool
}

func (e Event) String() string {
	var s string
	switch e.Kind {
	case JobStart, JobEnd:
		s = fmt.Sprintf("%s job %d (%s, %d tasks)", e.Kind, e.Job, e.Action, e.NumTasks)
	case StageStart, StageEnd:
		s = fmt.Sprintf("%s job %d stage %d %s (%d tasks)", e.Kind, e.Job, e.Stage, e.StageName, e.NumTasks)
	case ShuffleWritten:
		return fmt.Sprintf("%s job %d shuffle %d by %d tasks: %d records, %d bytes, %d spilled, in %v", e.Kind, e.Job, e.Shuffle, e.NumTasks, e.Records, e.Bytes, e.Spilled, e.Duration)
	case ShuffleFetched:
		return fmt.Sprintf("%s job %d shuffle %d: %d bytes received, %d sent, in %v", e.Kind, e.Job, e.Shuffle, e.Bytes, e.Sent, e.Duration)
	default:
		s = fmt.Sprintf("%s job %d stage %d partition %d worker %d attempt %d", e.Kind, e.Job, e.Stage, e.Partition, e.Worker, e.Attempt)
		if e.Remote {
			s += " (remote)"
		}
	}
	switch e.Kind {
	case JobEnd, StageEnd, TaskEnd:
		s += fmt.Sprintf(" in %v", e.Duration)
		if e.Err != nil {
			s += ": " + e.Err.Error()
		}
	}
	return s
}

// eventBus delivers events to subscribers one at a time, in the order
// they are emitted.
type eventBus struct {
	mu      sync.Mutex // guards subs, order, next and snap
	subs    map[int]func(Event)
	order   []int
	next    int
	snap    []func(Event) // the subscribers in order; replaced, never modified
	deliver sync.Mutex    // serializes delivery
}

// Subscribe calls f with every event from now on, until the returned
// function is called. Calls are serialized and come from the goroutines
// that run jobs and tasks, so f must return quickly and must not run
// actions; a panic in f is recovered and ignored.
func (sc *Context) Subscribe(f func(Event)) (unsubscribe func()) {
	b := &sc.events
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[int]func(Event){}
	}
	id := b.next
	b.next++
	b.subs[id] = f
	b.order = append(b.order, id)
	b.update()
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[id]; !ok {
			return
		}
		delete(b.subs, id)
		for i, o := range b.order {
			if o == id {
				b.order = append(b.order[:i:i], b.order[i+1:]...)
				break
			}
		}
		b.update()
	}
}

// update rebuilds the snapshot; b.mu is held.
func (b *eventBus) update() {
	snap := make([]func(Event), len(b.order))
	for i, id := range b.order {
		snap[i] = b.subs[id]
	}
	b.snap = snap
}

// emit delivers e to the current subscribers.
func (b *eventBus) emit(e Event) {
	b.mu.Lock()
	fs := b.snap
	b.mu.Unlock()
	if len(fs) == 0 {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	b.deliver.Lock()
	defer b.deliver.Unlock()
	for _, f := range fs {
		func() {
			defer func() { recover() }()
			f(e)
		}()
	}
}
