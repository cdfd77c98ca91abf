package ui

import (
	"sort"
	"sync"
	"time"
)

// Retention limits, as Spark's spark.ui.retained* settings: the oldest
// finished jobs and stages are forgotten beyond these, and a trainer keeps
// its latest steps.
const (
	RetainedJobs   = 1000
	RetainedStages = 1000
	RetainedSteps  = 20000
)

// State is what the UI shows: the fold of the records applied to it, in
// order. The live UI applies records as they happen; the history server
// applies those of an event log, and so shows the same. It is safe for
// concurrent use.
type State struct {
	mu      sync.RWMutex
	changed chan struct{} // closed and replaced when a record is applied
	version uint64
	// versions counts the records applied to each section of the state,
	// so that a live page redraws only when what it shows changed.
	versions [numSections]uint64
	live     bool // time goes on: running things age with the clock

	app     *AppInfo
	env     *Environment
	start   time.Time
	end     time.Time
	last    time.Time // the latest record's time
	records int

	jobs     map[int]*job
	jobOrder []int // ascending
	stages   map[int]*stage
	stOrder  []int
	tasks    int // task IDs given so far

	workers    map[int]*workerTally
	storeOf    []WorkerStore
	rdds       []RDDStore
	trainers   map[int]*trainer
	trainOrder []int
}

type job struct {
	id         int
	action     string
	numTasks   int
	submitted  time.Time
	completed  time.Time
	duration   time.Duration
	done       bool
	err        string
	stages     []int
	active     int
	completedT int
	failedT    int
	fetched    int64 // shuffle bytes this rank received from others
	sent       int64 // and sent to them
}

type stage struct {
	id, job   int
	name      string
	numTasks  int
	submitted time.Time
	completed time.Time
	duration  time.Duration
	done      bool
	err       string
	tasks     []*task
	open      map[[2]int]*task // running attempts by partition and attempt

	shuffle                 int // the shuffle whose map output the stage wrote, or 0
	records, bytes, spilled int64
}

type task struct {
	id        int
	partition int
	worker    int
	attempt   int
	launch    time.Time
	duration  time.Duration
	done      bool
	failed    bool
	err       string
	remote    bool
}

type workerTally struct {
	active, completed, failed int
	time                      time.Duration
}

type trainer struct {
	info   TrainerInfo
	start  time.Time
	rounds []RoundInfo
	steps  []StepInfo
	last   *StepInfo
}

// A section is a part of the state that pages show.
type section int

const (
	secApp      section = iota // the application and its environment
	secJobs                    // jobs, stages and tasks
	secStorage                 // what the workers hold
	secTraining                // trainers, rounds and steps
	numSections
)

// sectionOf says which section a record changes.
func sectionOf(event string) section {
	switch event {
	case EvJobStart, EvJobEnd, EvStageStart, EvStageEnd, EvTaskStart, EvTaskEnd, EvShuffleWritten, EvShuffleFetched:
		return secJobs
	case EvStorageUpdate:
		return secStorage
	case EvTrainerStart, EvRoundEnd, EvStep:
		return secTraining
	}
	return secApp
}

// sectionVersions returns the versions of the given sections, summed,
// and whether a job is running.
func (s *State) sectionVersions(secs []section) (uint64, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var v uint64
	for _, sec := range secs {
		v += s.versions[sec]
	}
	running := false
	for i := len(s.jobOrder) - 1; i >= 0 && !running; i-- {
		running = !s.jobs[s.jobOrder[i]].done
	}
	return v, running
}

// NewState returns an empty state. A live state (the UI of a running
// context) ages running jobs with the clock; a replayed one stops at its
// last record.
func NewState(live bool) *State {
	return &State{
		changed:  make(chan struct{}),
		live:     live,
		jobs:     map[int]*job{},
		stages:   map[int]*stage{},
		workers:  map[int]*workerTally{},
		trainers: map[int]*trainer{},
	}
}

// Changed returns a channel closed at the next change of the state.
func (s *State) Changed() <-chan struct{} {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.changed
}

// Version counts the records applied.
func (s *State) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// now is the state's present: the clock for a live, running application,
// else its end or its last record.
func (s *State) now() time.Time {
	if !s.end.IsZero() {
		return s.end
	}
	if s.live {
		return time.Now()
	}
	return s.last
}

// Apply adds a record to the state.
func (s *State) Apply(r Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apply(r)
	s.version++
	s.versions[sectionOf(r.Event)]++
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *State) apply(r Record) {
	s.records++
	if r.Time.After(s.last) {
		s.last = r.Time
	}
	switch r.Event {
	case EvApplicationStart:
		if r.App != nil {
			a := *r.App
			s.app = &a
		}
		s.env = r.Env
		s.start = r.Time
	case EvApplicationEnd:
		s.end = r.Time
	case EvJobStart:
		j := &job{id: r.Job, action: r.Action, numTasks: r.NumTasks, submitted: r.Time}
		s.jobs[r.Job] = j
		s.jobOrder = append(s.jobOrder, r.Job)
		s.trimJobs()
	case EvJobEnd:
		if j := s.jobs[r.Job]; j != nil {
			j.done, j.completed, j.duration, j.err = true, r.Time, r.Duration, r.Error
		}
	case EvStageStart:
		st := &stage{id: r.Stage, job: r.Job, name: r.StageName, numTasks: r.NumTasks, submitted: r.Time, open: map[[2]int]*task{}}
		s.stages[r.Stage] = st
		s.stOrder = append(s.stOrder, r.Stage)
		if j := s.jobs[r.Job]; j != nil {
			j.stages = append(j.stages, r.Stage)
		}
		s.trimStages()
	case EvStageEnd:
		if st := s.stages[r.Stage]; st != nil {
			st.done, st.completed, st.duration, st.err = true, r.Time, r.Duration, r.Error
		}
	case EvTaskStart:
		s.tasks++
		t := &task{id: s.tasks, partition: r.Partition, worker: r.Worker, attempt: r.Attempt, launch: r.Time, remote: r.Remote}
		if st := s.stages[r.Stage]; st != nil {
			st.tasks = append(st.tasks, t)
			st.open[[2]int{r.Partition, r.Attempt}] = t
		}
		if j := s.jobs[r.Job]; j != nil {
			j.active++
		}
		s.worker(r.Worker).active++
	case EvTaskEnd:
		if st := s.stages[r.Stage]; st != nil {
			key := [2]int{r.Partition, r.Attempt}
			if t := st.open[key]; t != nil {
				delete(st.open, key)
				t.done, t.duration, t.failed, t.err = true, r.Duration, r.Failed, r.Error
			}
		}
		if j := s.jobs[r.Job]; j != nil {
			j.active--
			if r.Failed {
				j.failedT++
			} else {
				j.completedT++
			}
		}
		w := s.worker(r.Worker)
		w.active--
		w.time += r.Duration
		if r.Failed {
			w.failed++
		} else {
			w.completed++
		}
	case EvShuffleWritten:
		// The map stage is the job's latest stage of that name.
		if j := s.jobs[r.Job]; j != nil {
			for i := len(j.stages) - 1; i >= 0; i-- {
				if st := s.stages[j.stages[i]]; st != nil && st.name == r.StageName {
					st.shuffle, st.records, st.bytes, st.spilled = r.Shuffle, r.Records, r.Bytes, r.Spilled
					break
				}
			}
		}
	case EvShuffleFetched:
		if j := s.jobs[r.Job]; j != nil {
			j.fetched += r.Bytes
			j.sent += r.Sent
		}
	case EvStorageUpdate:
		s.storeOf = r.Workers
		s.rdds = r.RDDs
	case EvTrainerStart:
		if r.Trainer != nil {
			if _, dup := s.trainers[r.Trainer.ID]; !dup {
				s.trainOrder = append(s.trainOrder, r.Trainer.ID)
			}
			s.trainers[r.Trainer.ID] = &trainer{info: *r.Trainer, start: r.Time}
		}
	case EvRoundEnd:
		if r.Round != nil {
			if t := s.trainers[r.Round.Trainer]; t != nil {
				t.rounds = append(t.rounds, *r.Round)
			}
		}
	case EvStep:
		if r.Step != nil {
			if t := s.trainers[r.Step.Trainer]; t != nil {
				t.steps = append(t.steps, *r.Step)
				if len(t.steps) > RetainedSteps {
					t.steps = append(t.steps[:0:0], t.steps[len(t.steps)-RetainedSteps/2:]...)
				}
				st := *r.Step
				t.last = &st
			}
		}
	}
}

func (s *State) worker(w int) *workerTally {
	t := s.workers[w]
	if t == nil {
		t = &workerTally{}
		s.workers[w] = t
	}
	return t
}

// trimJobs forgets the oldest finished jobs beyond RetainedJobs.
func (s *State) trimJobs() {
	for len(s.jobOrder) > RetainedJobs {
		i := 0
		for i < len(s.jobOrder) && !s.jobs[s.jobOrder[i]].done {
			i++
		}
		if i == len(s.jobOrder) {
			return
		}
		delete(s.jobs, s.jobOrder[i])
		s.jobOrder = append(s.jobOrder[:i], s.jobOrder[i+1:]...)
	}
}

// trimStages forgets the oldest finished stages beyond RetainedStages.
func (s *State) trimStages() {
	for len(s.stOrder) > RetainedStages {
		i := 0
		for i < len(s.stOrder) && !s.stages[s.stOrder[i]].done {
			i++
		}
		if i == len(s.stOrder) {
			return
		}
		delete(s.stages, s.stOrder[i])
		s.stOrder = append(s.stOrder[:i], s.stOrder[i+1:]...)
	}
}

// sortedKeys returns m's keys in ascending order.
func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}
