//go:build linux

package ui

import (
	"context"
	"io"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/rdd"
)

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// uiCPU sums the CPU time of the UI's work by kind, measured on the
// thread that does it.
var uiCPU [3]atomic.Int64

// measureCPU is a measureHook that measures the CPU time of each piece
// of work on its thread.
func measureCPU(kind int) func() {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		uiCPU[kind].Add(int64(threadCPU() - start))
		runtime.UnlockOSThread()
	}
}

// settle is how long a round's measurement goes on after the round, so
// that the live pages it changed are drawn within it.
const settle = 2 * pageInterval

// BenchmarkUIOverhead measures what the UI costs a LeNet training round
// at τ = 50. Two identical trainers run their rounds in turn: one on a
// context without a UI, one on a context whose UI writes an event log and
// streams the Training and Jobs pages and the event stream to open
// clients, as a browser watching the run does. Each round is measured
// until the pages it changed are drawn (settle).
//
// It reports the rounds' wall and CPU times (the process's CPU time,
// which a busy machine inflates less than wall time) and their
// differences in percent, and the CPU time of the UI's own work per
// round, measured on the threads that do it: queueing records on the
// job's goroutines, applying them (state, event log, streams) and drawing
// pages. %ui-cpu is that work in percent of the round's CPU time: the
// share of training the UI takes away. The goal is under 1%.
//
//	go test -run='^$' -bench=UIOverhead -benchtime=10x ./ui
func BenchmarkUIOverhead(b *testing.B) {
	_, plain := lenetTrainer(b)
	measureHook = measureCPU
	defer func() { measureHook = nil }()
	sc, err := rdd.NewContext("local[2]")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sc.Close() })
	u, err := Start(sc, Options{Port: 0, EventLog: b.TempDir(), Errors: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { u.Close() })
	sp, err := caffe.LoadSolverParameter("../scripts/lenet_solver.prototxt")
	if err != nil {
		b.Fatal(err)
	}
	train := sc.ParallelizeSamples(mnistLike(6400, 1), 2).Cache()
	watched, err := sparknet.Parallelize(sc, sp, train, sparknet.Options{Tau: 50, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { watched.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, p := range []string{"stream?page=%2Ftraining%2F", "stream?page=%2Fjobs%2F", "api/v1/events"} {
		watch(b, ctx, u.URL()+p)
	}
	round := func(t *sparknet.Trainer) (wall, cpu time.Duration) {
		c0, w0 := cpuTime(), time.Now()
		if _, err := t.Round(ctx); err != nil {
			b.Fatal(err)
		}
		wall = time.Since(w0)
		time.Sleep(settle)
		return wall, cpuTime() - c0
	}
	// A round of each to warm up: replicas, caches, the pages.
	round(plain)
	round(watched)
	var work0 [3]time.Duration
	for k := range uiCPU {
		work0[k] = time.Duration(uiCPU[k].Load())
	}
	var baseWall, baseCPU, uiWall, withCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		order := []*sparknet.Trainer{plain, watched}
		if i%2 == 1 {
			order[0], order[1] = watched, plain // alternate who goes first
		}
		for _, t := range order {
			w, c := round(t)
			if t == plain {
				baseWall, baseCPU = baseWall+w, baseCPU+c
			} else {
				uiWall, withCPU = uiWall+w, withCPU+c
			}
		}
	}
	b.StopTimer()
	var work [3]time.Duration
	var total time.Duration
	for k := range uiCPU {
		work[k] = time.Duration(uiCPU[k].Load()) - work0[k]
		total += work[k]
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / n }
	pct := func(a, b time.Duration) float64 { return 100 * (a - b).Seconds() / b.Seconds() }
	b.ReportMetric(ms(baseWall), "ms/round")
	b.ReportMetric(ms(uiWall), "ms/round-ui")
	b.ReportMetric(pct(uiWall, baseWall), "%slower")
	b.ReportMetric(ms(baseCPU), "cpu-ms/round")
	b.ReportMetric(ms(withCPU), "cpu-ms/round-ui")
	b.ReportMetric(pct(withCPU, baseCPU), "%more-cpu")
	b.ReportMetric(ms(work[workQueue]), "ui-queue-cpu-ms/round")
	b.ReportMetric(ms(work[workApply]), "ui-apply-cpu-ms/round")
	b.ReportMetric(ms(work[workDraw]), "ui-draw-cpu-ms/round")
	b.ReportMetric(100*total.Seconds()/withCPU.Seconds(), "%ui-cpu")
}
