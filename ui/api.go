package ui

import (
	"fmt"
	"time"
)

// The JSON answers of /api/v1/, in the manner of Spark's REST API. Times
// are UTC, as "2006-01-02T15:04:05.000000Z"; durations are milliseconds.

// ApplicationData answers /api/v1/applications.
type ApplicationData struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Master         string `json:"master"`
	Workers        int    `json:"workers"`
	Ranks          int    `json:"ranks"`
	StartTime      string `json:"startTime"`
	EndTime        string `json:"endTime,omitempty"`
	LastUpdated    string `json:"lastUpdated"`
	Completed      bool   `json:"completed"`
	NumEvents      int    `json:"numEvents"`
	NumJobs        int    `json:"numJobs"`
	NumTrainers    int    `json:"numTrainers"`
	DurationMillis *Num   `json:"durationMs,omitempty"`
}

// JobData answers /api/v1/jobs and /api/v1/jobs/{id}.
type JobData struct {
	JobID              int    `json:"jobId"`
	Name               string `json:"name"`        // the action, such as "Count"
	Description        string `json:"description"` // what its last stage computes, such as "train (MNIST)[1]"
	SubmissionTime     string `json:"submissionTime"`
	CompletionTime     string `json:"completionTime,omitempty"`
	DurationMillis     *Num   `json:"durationMs,omitempty"`
	Status             string `json:"status"` // RUNNING, SUCCEEDED or FAILED
	StageIDs           []int  `json:"stageIds"`
	NumTasks           int    `json:"numTasks"`
	NumActiveTasks     int    `json:"numActiveTasks"`
	NumCompletedTasks  int    `json:"numCompletedTasks"`
	NumFailedTasks     int    `json:"numFailedTasks"`
	NumActiveStages    int    `json:"numActiveStages"`
	NumCompletedStages int    `json:"numCompletedStages"`
	NumFailedStages    int    `json:"numFailedStages"`
	FailureReason      string `json:"failureReason,omitempty"`
	// ShuffleWriteBytes sums what the job's map stages wrote;
	// ShuffleFetchBytes and ShuffleSentBytes are what rank 0 received
	// from and sent to the other ranks (SPMD).
	ShuffleWriteBytes int64 `json:"shuffleWriteBytes,omitempty"`
	ShuffleFetchBytes int64 `json:"shuffleFetchBytes,omitempty"`
	ShuffleSentBytes  int64 `json:"shuffleSentBytes,omitempty"`
	// Stages is filled in by /api/v1/jobs/{id}.
	Stages []StageData `json:"stages,omitempty"`
}

// StageData answers /api/v1/stages and /api/v1/stages/{id}.
type StageData struct {
	StageID          int    `json:"stageId"`
	JobID            int    `json:"jobId"`
	Name             string `json:"name"`
	Status           string `json:"status"` // ACTIVE, COMPLETE or FAILED
	NumTasks         int    `json:"numTasks"`
	NumActiveTasks   int    `json:"numActiveTasks"`
	NumCompleteTasks int    `json:"numCompleteTasks"`
	NumFailedTasks   int    `json:"numFailedTasks"`
	SubmissionTime   string `json:"submissionTime"`
	CompletionTime   string `json:"completionTime,omitempty"`
	DurationMillis   *Num   `json:"durationMs,omitempty"`
	FailureReason    string `json:"failureReason,omitempty"`
	// A map stage's shuffle output: the shuffle, the elements and bytes
	// written, and the bytes spilled to disk.
	ShuffleID           int        `json:"shuffleId,omitempty"`
	ShuffleWriteRecords int64      `json:"shuffleWriteRecords,omitempty"`
	ShuffleWriteBytes   int64      `json:"shuffleWriteBytes,omitempty"`
	ShuffleSpilledBytes int64      `json:"shuffleSpilledBytes,omitempty"`
	Tasks               []TaskData `json:"tasks,omitempty"`
}

// TaskData is one task attempt.
type TaskData struct {
	TaskID         int    `json:"taskId"`
	Partition      int    `json:"index"`
	Attempt        int    `json:"attempt"`
	Worker         int    `json:"workerId"`
	LaunchTime     string `json:"launchTime"`
	DurationMillis *Num   `json:"durationMs,omitempty"`
	Status         string `json:"status"` // RUNNING, SUCCESS or FAILED
	ErrorMessage   string `json:"errorMessage,omitempty"`
	Remote         bool   `json:"remote,omitempty"`
}

// WorkerData answers /api/v1/workers, as Spark's executor list.
type WorkerData struct {
	ID                  int   `json:"id"`
	Rank                int   `json:"rank"`
	ActiveTasks         int   `json:"activeTasks"`
	CompletedTasks      int   `json:"completedTasks"`
	FailedTasks         int   `json:"failedTasks"`
	TotalTasks          int   `json:"totalTasks"`
	TotalDurationMillis Num   `json:"totalDurationMs"`
	CachedPartitions    int   `json:"cachedPartitions"`
	CachedBytes         int64 `json:"cachedBytes"`
	StoreKeys           int   `json:"storeKeys"`
	StoreBytes          int64 `json:"storeBytes"`
}

// TrainerData answers /api/v1/trainers and /api/v1/trainers/{id}.
type TrainerData struct {
	TrainerInfo
	StartTime        string    `json:"startTime"`
	RoundsDone       int       `json:"roundsDone"`
	Iter             int       `json:"iter"`
	LearningRate     *Num      `json:"learningRate,omitempty"`
	LastTrainLoss    *Num      `json:"lastTrainLoss,omitempty"`
	LastTestLoss     *Num      `json:"lastTestLoss,omitempty"`
	LastTestAccuracy *Num      `json:"lastTestAccuracy,omitempty"`
	ComputeSeconds   Num       `json:"computeSeconds"`
	CommSeconds      Num       `json:"commSeconds"`
	BytesMoved       int64     `json:"bytesMoved"`
	Current          *StepInfo `json:"currentStep,omitempty"`
}

// apiError is the body of every error answer.
type apiError struct {
	Error string `json:"error"`
}

// stamp formats a time for the API.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// millis returns d in milliseconds.
func millis(d time.Duration) *Num {
	n := Num(float64(d) / 1e6)
	return &n
}

func numPtr(f Num) *Num { return &f }

// Application returns the application's summary, or false before it
// started.
func (s *State) Application() (ApplicationData, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.app == nil {
		return ApplicationData{}, false
	}
	a := ApplicationData{
		ID: s.app.ID, Name: s.app.Name, Master: s.app.Master, Workers: s.app.Workers, Ranks: s.app.Ranks,
		StartTime: stamp(s.start), EndTime: stamp(s.end), LastUpdated: stamp(s.last), Completed: !s.end.IsZero(),
		NumEvents: s.records, NumJobs: len(s.jobs), NumTrainers: len(s.trainers),
	}
	if a.Completed {
		a.DurationMillis = millis(s.end.Sub(s.start))
	}
	return a, true
}

// Jobs returns the jobs, newest first; status, when not "", keeps those
// whose status matches (RUNNING, SUCCEEDED or FAILED).
func (s *State) Jobs(status string) []JobData {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []JobData{}
	for i := len(s.jobOrder) - 1; i >= 0; i-- {
		d := s.jobData(s.jobs[s.jobOrder[i]])
		if status == "" || d.Status == status {
			out = append(out, d)
		}
	}
	return out
}

// Job returns a job with its stages and their tasks.
func (s *State) Job(id int) (JobData, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	j := s.jobs[id]
	if j == nil {
		return JobData{}, s.unknown("job", id, s.jobOrder)
	}
	d := s.jobData(j)
	for _, sid := range j.stages {
		if st := s.stages[sid]; st != nil {
			d.Stages = append(d.Stages, s.stageData(st, true))
		}
	}
	return d, nil
}

func (s *State) jobData(j *job) JobData {
	d := JobData{
		JobID: j.id, Name: j.action, SubmissionTime: stamp(j.submitted), Status: "RUNNING",
		StageIDs: append([]int{}, j.stages...), NumTasks: j.numTasks,
		NumActiveTasks: j.active, NumCompletedTasks: j.completedT, NumFailedTasks: j.failedT,
		ShuffleFetchBytes: j.fetched, ShuffleSentBytes: j.sent,
	}
	if j.done {
		d.Status = "SUCCEEDED"
		if j.err != "" {
			d.Status, d.FailureReason = "FAILED", j.err
		}
		d.CompletionTime, d.DurationMillis = stamp(j.completed), millis(j.duration)
	}
	for _, sid := range j.stages {
		st := s.stages[sid]
		if st != nil {
			d.Description = st.name
			d.ShuffleWriteBytes += st.bytes
		}
		switch {
		case st == nil:
		case !st.done:
			d.NumActiveStages++
		case st.err != "":
			d.NumFailedStages++
		default:
			d.NumCompletedStages++
		}
	}
	return d
}

// Stages returns the stages, newest first.
func (s *State) Stages() []StageData {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []StageData{}
	for i := len(s.stOrder) - 1; i >= 0; i-- {
		out = append(out, s.stageData(s.stages[s.stOrder[i]], false))
	}
	return out
}

// stageSpan is when a stage ran, for timelines.
type stageSpan struct {
	id                   int
	name                 string
	submitted, completed time.Time
	duration             time.Duration
}

// stageSpans returns when the stages ran, without their tasks.
func (s *State) stageSpans(ids []int) []stageSpan {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]stageSpan, 0, len(ids))
	for _, id := range ids {
		if st := s.stages[id]; st != nil {
			out = append(out, stageSpan{id: st.id, name: st.name, submitted: st.submitted, completed: st.completed, duration: st.duration})
		}
	}
	return out
}

// Stage returns a stage with its task attempts.
func (s *State) Stage(id int) (StageData, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.stages[id]
	if st == nil {
		return StageData{}, s.unknown("stage", id, s.stOrder)
	}
	return s.stageData(st, true), nil
}

func (s *State) stageData(st *stage, withTasks bool) StageData {
	d := StageData{StageID: st.id, JobID: st.job, Name: st.name, Status: "ACTIVE", NumTasks: st.numTasks, SubmissionTime: stamp(st.submitted),
		ShuffleID: st.shuffle, ShuffleWriteRecords: st.records, ShuffleWriteBytes: st.bytes, ShuffleSpilledBytes: st.spilled}
	if st.done {
		d.Status = "COMPLETE"
		if st.err != "" {
			d.Status, d.FailureReason = "FAILED", st.err
		}
		d.CompletionTime, d.DurationMillis = stamp(st.completed), millis(st.duration)
	}
	for _, t := range st.tasks {
		switch {
		case !t.done:
			d.NumActiveTasks++
		case t.failed:
			d.NumFailedTasks++
		default:
			d.NumCompleteTasks++
		}
		if withTasks {
			d.Tasks = append(d.Tasks, taskData(t))
		}
	}
	return d
}

func taskData(t *task) TaskData {
	d := TaskData{TaskID: t.id, Partition: t.partition, Attempt: t.attempt, Worker: t.worker, LaunchTime: stamp(t.launch), Status: "RUNNING", Remote: t.remote}
	if t.done {
		d.Status, d.DurationMillis = "SUCCESS", millis(t.duration)
		if t.failed {
			d.Status, d.ErrorMessage = "FAILED", t.err
		}
	}
	return d
}

// Workers returns every worker's tasks and what it holds.
func (s *State) Workers() []WorkerData {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	if s.app != nil {
		n = s.app.Workers
	}
	for w := range s.workers {
		n = max(n, w+1)
	}
	for _, ws := range s.storeOf {
		n = max(n, ws.Worker+1)
	}
	out := make([]WorkerData, n)
	for w := range out {
		d := WorkerData{ID: w}
		if s.app != nil && s.app.Ranks > 1 {
			d.Rank = w
		}
		if t := s.workers[w]; t != nil {
			d.ActiveTasks, d.CompletedTasks, d.FailedTasks = t.active, t.completed, t.failed
			d.TotalTasks = t.active + t.completed + t.failed
			d.TotalDurationMillis = *millis(t.time)
		}
		out[w] = d
	}
	for _, ws := range s.storeOf {
		d := &out[ws.Worker]
		d.Rank, d.CachedPartitions, d.CachedBytes, d.StoreKeys, d.StoreBytes = ws.Rank, ws.CachedPartitions, ws.CachedBytes, ws.StoreKeys, ws.StoreBytes
	}
	return out
}

// Storage returns the persisted RDDs, by ID, without their partitions.
func (s *State) Storage() []RDDStore {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []RDDStore{}
	for _, r := range s.rdds {
		r.Blocks = nil
		out = append(out, r)
	}
	return out
}

// RDD returns a persisted RDD with its cached partitions.
func (s *State) RDD(id int) (RDDStore, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []int
	for _, r := range s.rdds {
		if r.ID == id {
			r.Blocks = append([]BlockInfo{}, r.Blocks...)
			return r, nil
		}
		ids = append(ids, r.ID)
	}
	return RDDStore{}, s.unknown("persisted RDD", id, ids)
}

// Trainers returns the trainers, in the order they started.
func (s *State) Trainers() []TrainerData {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []TrainerData{}
	for _, id := range s.trainOrder {
		out = append(out, s.trainerData(s.trainers[id]))
	}
	return out
}

// Trainer returns one trainer.
func (s *State) Trainer(id int) (TrainerData, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.trainers[id]
	if t == nil {
		return TrainerData{}, s.unknown("trainer", id, s.trainOrder)
	}
	return s.trainerData(t), nil
}

func (s *State) trainerData(t *trainer) TrainerData {
	d := TrainerData{TrainerInfo: t.info, StartTime: stamp(t.start), RoundsDone: t.info.RoundsDone, Iter: t.info.IterAtStart}
	d.Schedule = nil // /api/v1/trainers/{id}/schedule has it
	for _, r := range t.rounds {
		d.ComputeSeconds += r.ComputeSeconds
		d.CommSeconds += r.CommSeconds
		d.BytesMoved += r.BytesMoved
		if r.Tested {
			d.LastTestLoss, d.LastTestAccuracy = numPtr(r.TestLoss), numPtr(r.TestAccuracy)
		}
	}
	if n := len(t.rounds); n > 0 {
		r := t.rounds[n-1]
		d.RoundsDone, d.Iter = r.Round, r.Iter
		d.LearningRate, d.LastTrainLoss = numPtr(r.LearningRate), numPtr(r.TrainLoss)
	}
	if t.last != nil && (len(t.rounds) == 0 || t.last.Round > t.rounds[len(t.rounds)-1].Round) {
		c := *t.last
		d.Current = &c
	}
	return d
}

// Rounds returns a trainer's rounds, oldest first.
func (s *State) Rounds(id int) ([]RoundInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.trainers[id]
	if t == nil {
		return nil, s.unknown("trainer", id, s.trainOrder)
	}
	return append([]RoundInfo{}, t.rounds...), nil
}

// Steps returns the retained local iterations of a trainer's replica 0.
func (s *State) Steps(id int) ([]StepInfo, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.trainers[id]
	if t == nil {
		return nil, s.unknown("trainer", id, s.trainOrder)
	}
	return append([]StepInfo{}, t.steps...), nil
}

// stepCurve returns a trainer's step losses by iteration, averaged over
// buckets of consecutive steps when there are more than n, without
// copying the steps.
func (s *State) stepCurve(id, n int) (xs, ys []float64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.trainers[id]
	if t == nil {
		return nil, nil
	}
	return downsample(t.steps, n)
}

// Schedule returns a trainer's learning-rate schedule.
func (s *State) Schedule(id int) ([]LRPoint, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.trainers[id]
	if t == nil {
		return nil, s.unknown("trainer", id, s.trainOrder)
	}
	return append([]LRPoint{}, t.info.Schedule...), nil
}

// Environment returns the environment recorded at the start.
func (s *State) Environment() Environment {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.env == nil {
		return Environment{Sections: []EnvSection{}}
	}
	return *s.env
}

// NotFoundError is the error of a lookup by an unknown ID.
type NotFoundError struct {
	What  string
	ID    int
	Known []int
}

func (e *NotFoundError) Error() string {
	switch len(e.Known) {
	case 0:
		return fmt.Sprintf("no %s %d: there are none yet", e.What, e.ID)
	case 1:
		return fmt.Sprintf("no %s %d: the only one is %d", e.What, e.ID, e.Known[0])
	}
	lo, hi := e.Known[0], e.Known[0]
	for _, k := range e.Known {
		lo, hi = min(lo, k), max(hi, k)
	}
	return fmt.Sprintf("no %s %d: there are %d, with IDs from %d to %d", e.What, e.ID, len(e.Known), lo, hi)
}

func (s *State) unknown(what string, id int, known []int) error {
	return &NotFoundError{What: what, ID: id, Known: append([]int(nil), known...)}
}
