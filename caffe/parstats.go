//go:build parstats

package caffe

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sparknet-go/sparknet/internal/cputime"
)

// With the parstats build tag, the parallel runner and the passes keep an
// account of where the time of a training step goes, for
// TestParStats (parstats_test.go): each stretch of a pass (a layer's or a
// fused group's forward or backward, the solver's clearing and update
// around it) is a segment, and within it each run of the parallel runner
// records how long it took, how long each goroutine was busy with parts
// (wall and thread CPU time), how long the calling goroutine waited
// for the others after its own parts, and how late the others started.
// Time in a segment outside its runs is serial: the calling goroutine
// alone works.

// parStats turns the accounting on.
const parStats = true

// maxStatsWorkers is the most goroutines the accounting tells apart.
const maxStatsWorkers = 4

// maxStatsParts is the most parts of a run accounted one by one.
const maxStatsParts = 64

// statsSerial makes the parallel runner run a run's parts one after the
// other on the calling goroutine, each as the goroutine of the share it
// is dealt to (runSerial), and start run them at once, so that the
// accounting records each part's CPU time on one thread whatever other
// processes load the machine: TestParStats's PARSTATS_SERIAL plays the
// runs' shares out from those times (simulateRun).
var statsSerial bool

// runRecord is one run of a parallelRunner.
type runRecord struct {
	seg            int // index into statsSegs
	parts, workers int
	t0, tOwn, tEnd int64 // start, the caller's own parts done, end (ns)
	c0, c1         int64 // the caller's thread CPU time at the start and the end
	tid0, tid1     int   // the caller's thread at the start and the end
	busy, cpu      [maxStatsWorkers]int64
	first          [maxStatsWorkers]int64 // the first part's start, 0 for none
	n              [maxStatsWorkers]int
	partT0, partC0 [maxStatsWorkers]int64
	partTid        [maxStatsWorkers]int
	callerMoved    bool // the caller runs on another thread than at the last run
	ahead          bool // a run that start began (statsSerial: run at once)
	// Per part (the first maxStatsParts): who ran it, its start (from
	// t0), its wall time and its thread CPU time.
	partW                        [maxStatsParts]int8
	partStart, partWall, partCPU [maxStatsParts]int64
	moved                        [maxStatsWorkers]int // parts whose goroutine changed thread
}

// segRecord is one segment of a pass on the calling goroutine.
type segRecord struct {
	kind       byte // 'F' forward, 'B' backward, 'c' clear before, 'u' update after, 's' solver
	layer      string
	t0, t1     int64
	cpu0, cpu1 int64
	tid0, tid1 int // the caller's thread at the start and the end
	runs       []*runRecord
}

var (
	statsMu    sync.Mutex
	statsOn    bool
	statsEpoch = time.Now()
	statsSegs  []*segRecord
	// statsCallerTid is the thread of the caller at the last run.
	statsCallerTid int
)

func statsNow() int64 { return int64(time.Since(statsEpoch)) }

// statsStart starts recording; statsStop stops it and returns the
// segments recorded.
func statsStart() {
	statsMu.Lock()
	defer statsMu.Unlock()
	statsOn, statsSegs = true, nil
}

func statsStop() []*segRecord {
	statsSegment(0, "")
	statsMu.Lock()
	defer statsMu.Unlock()
	statsOn = false
	s := statsSegs
	statsSegs = nil
	return s
}

// runStats is a parallelRunner's accounting of its current run.
type runStats struct{ cur *runRecord }

func (s *runStats) begin(parts, workers int) {
	s.cur = nil
	if !statsOn || len(statsSegs) == 0 {
		return
	}
	seg := statsSegs[len(statsSegs)-1]
	if seg.t1 != 0 {
		return
	}
	tid := unix.Gettid()
	r := &runRecord{seg: len(statsSegs) - 1, parts: parts, workers: workers, t0: statsNow(), c0: int64(cputime.Thread()), tid0: tid}
	if tid != statsCallerTid {
		statsCallerTid = tid
		r.callerMoved = true
	}
	seg.runs = append(seg.runs, r)
	s.cur = r
}

func (s *runStats) partStart(w, p int) {
	if r := s.cur; r != nil && w < maxStatsWorkers {
		r.partT0[w], r.partC0[w], r.partTid[w] = statsNow(), int64(cputime.Thread()), unix.Gettid()
		if r.first[w] == 0 {
			r.first[w] = r.partT0[w]
		}
	}
}

func (s *runStats) partEnd(w, p int) {
	if r := s.cur; r != nil && w < maxStatsWorkers {
		wall, cpu := statsNow()-r.partT0[w], int64(cputime.Thread())-r.partC0[w]
		if p < maxStatsParts {
			r.partW[p], r.partStart[p], r.partWall[p], r.partCPU[p] = int8(w), r.partT0[w]-r.t0, wall, cpu
		}
		r.busy[w] += wall
		if unix.Gettid() == r.partTid[w] {
			r.cpu[w] += cpu
		} else {
			// Moved to another thread: its clock says nothing of the
			// part; count the wall time.
			r.cpu[w] += wall
			r.moved[w]++
		}
		r.n[w]++
	}
}

// startedAhead marks the run as one that start began, for the pooled
// goroutines to run while the caller does something else.
func (s *runStats) startedAhead() {
	if r := s.cur; r != nil {
		r.ahead = true
	}
}

func (s *runStats) ownDone() {
	if r := s.cur; r != nil {
		r.tOwn = statsNow()
	}
}

func (s *runStats) end() {
	if r := s.cur; r != nil {
		r.tEnd, r.c1, r.tid1 = statsNow(), int64(cputime.Thread()), unix.Gettid()
		if r.tOwn == 0 {
			r.tOwn = r.tEnd
		}
		s.cur = nil
	}
}

// statsSegment ends the current segment and starts one of the given kind
// for the named layer (kind 0: none).
func statsSegment(kind byte, layer string) {
	if !statsOn {
		return
	}
	now, cpu, tid := statsNow(), int64(cputime.Thread()), unix.Gettid()
	if n := len(statsSegs); n > 0 && statsSegs[n-1].t1 == 0 {
		statsSegs[n-1].t1, statsSegs[n-1].cpu1, statsSegs[n-1].tid1 = now, cpu, tid
	}
	if kind != 0 {
		statsSegs = append(statsSegs, &segRecord{kind: kind, layer: layer, t0: now, cpu0: cpu, tid0: tid})
	}
}
