package rdd

import (
	"errors"
	"sort"
	"sync"
	"time"
)

// stageLog carries task attempts and worker reports between the ranks of
// an SPMD job: each rank records its own attempts while a stage runs and
// sends them with its task results; the other ranks' come back.
type stageLog struct {
	mu     sync.Mutex
	local  []wireAttempt
	status func() WorkerStatus // this rank's worker, or nil

	remote       []wireAttempt
	remoteStatus []WorkerStatus
}

// wireAttempt is one task attempt as sent to the other ranks.
type wireAttempt struct {
	Partition, Worker, Attempt int
	Start                      int64 // Unix nanoseconds
	Duration                   time.Duration
	Err                        string
	Failed                     bool
}

// add records an attempt of this rank; a nil log records nothing.
func (l *stageLog) add(p, w, attempt int, start time.Time, d time.Duration, err error) {
	if l == nil {
		return
	}
	a := wireAttempt{Partition: p, Worker: w, Attempt: attempt, Start: start.UnixNano(), Duration: d}
	if err != nil {
		a.Err, a.Failed = err.Error(), true
	}
	l.mu.Lock()
	l.local = append(l.local, a)
	l.mu.Unlock()
}

// report is what this rank sends: its attempts and its worker's status.
func (l *stageLog) report() ([]wireAttempt, *WorkerStatus) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	attempts := l.local
	l.mu.Unlock()
	if l.status == nil {
		return attempts, nil
	}
	ws := l.status()
	return attempts, &ws
}

// receive records another rank's report.
func (l *stageLog) receive(attempts []wireAttempt, ws *WorkerStatus) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.remote = append(l.remote, attempts...)
	if ws != nil {
		l.remoteStatus = append(l.remoteStatus, *ws)
	}
}

// deliverRemote keeps the other ranks' worker reports and delivers their
// task attempts as Remote events, in partition and attempt order.
func (sc *Context) deliverRemote(j *jobState, stage int, name string, l *stageLog) {
	l.mu.Lock()
	attempts, statuses := l.remote, l.remoteStatus
	l.mu.Unlock()
	for _, ws := range statuses {
		sc.setRemoteStatus(ws)
	}
	sort.Slice(attempts, func(i, k int) bool {
		a, b := attempts[i], attempts[k]
		return a.Partition < b.Partition || a.Partition == b.Partition && a.Attempt < b.Attempt
	})
	for _, a := range attempts {
		start := time.Unix(0, a.Start)
		e := Event{Kind: TaskStart, Time: start, Job: j.id, Action: j.action, Stage: stage, StageName: name, Partition: a.Partition, Worker: a.Worker, Attempt: a.Attempt, Remote: true}
		sc.events.emit(e)
		e.Kind, e.Time, e.Duration = TaskEnd, start.Add(a.Duration), a.Duration
		if a.Failed {
			e.Err = errors.New(a.Err)
		}
		sc.events.emit(e)
	}
}
