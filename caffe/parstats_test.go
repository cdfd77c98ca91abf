//go:build parstats

package caffe

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestParStats trains LeNet (batch 64) and CIFAR-10 quick (batch 100) on
// one and on two threads, alternating rounds so that both see the same
// load on the machine, and prints where each step's time goes, segment
// by segment (a layer's or a fused group's forward 'F' or backward 'B',
// the solver's clearing 'c' before and update 'u' after a layer's
// backward, its own clearing and update 's'), in µs per iteration:
//
//	go test -tags parstats -run TestParStats -v ./caffe
//
// PARSTATS_NETS=lenet|cifar|alexnet picks one net, PARSTATS_ITERS and
// PARSTATS_ROUNDS set the iterations per round and the rounds,
// PARSTATS_BEST=f (0 < f < 1) accounts only the fraction f of each
// one's steps that took the least wall time (those that ran undisturbed
// on a loaded machine). PARSTATS_SERIAL=1 runs the two-thread steps'
// parts one after the other on one thread (statsSerial) and plays each
// run out on two goroutines from its parts' CPU times (simulateRun):
// the two-thread step that the machine's load does not distort (but
// without the hand-offs' latencies and the caches' sharing), segment by
// segment beside one thread's CPU time. Columns:
// 1t: the segment's wall and thread CPU time on one (locked) thread;
// 2t: its wall time on two, the serial part of it (outside the runs of
// the parallel runner), the runs' count and wall time, the busy time
// (thread CPU) of goroutine 0 (the caller) and 1 in the parts, the
// caller's wait for the other after its own parts, the other's start
// latency, the parts each took; work = the CPU time on 2 threads (the
// serial wall time and the parts' CPU) over that on 1.
func TestParStats(t *testing.T) {
	nets := []struct {
		name, model string
		c, h, w     int
	}{
		{"lenet", "mnist/lenet_train_test.prototxt", 1, 28, 28},
		{"cifar", "cifar10/cifar10_quick_train_test.prototxt", 3, 32, 32},
		{"alexnet", "testdata/bench/alexnet_train.prototxt", 3, 227, 227},
	}
	iters, rounds := envInt("PARSTATS_ITERS", 40), envInt("PARSTATS_ROUNDS", 3)
	for _, nt := range nets {
		if v := os.Getenv("PARSTATS_NETS"); v != "" && !strings.Contains(v, nt.name) {
			continue
		}
		var solvers [3]*Solver
		for th := 1; th <= 2; th++ {
			solvers[th] = benchSolver(t, nt.model, nt.c, nt.h, nt.w, th)
			solvers[th].Net().SetKeepTops(false)
			if err := solvers[th].Step(context.Background(), 3); err != nil {
				t.Fatal(err)
			}
		}
		var agg [3]*statsAgg
		var walls, procs [3]time.Duration
		var steps [3][][]*segRecord
		for range rounds {
			for th := 1; th <= 2; th++ {
				// One thread locked, so that the thread's CPU clock is the
				// caller's. Two threads not: a locked goroutine's
				// runtime.Gosched, with which the caller polls for the
				// other goroutine, hands its thread over to another and
				// back, which training does not pay (and which slows the
				// other goroutine's parts); the caller seldom blocks
				// within a pass, so it seldom changes thread (the report
				// counts the runs where it did).
				// Two threads played out serially run on one, locked too.
				statsSerial = th == 2 && os.Getenv("PARSTATS_SERIAL") != ""
				if th == 1 || statsSerial {
					runtime.LockOSThread()
				}
				p0, w0 := processCPUTime(), time.Now()
				statsStart()
				if err := solvers[th].Step(context.Background(), iters); err != nil {
					t.Fatal(err)
				}
				segs := statsStop()
				walls[th] += time.Since(w0)
				procs[th] += processCPUTime() - p0
				if th == 1 || statsSerial {
					runtime.UnlockOSThread()
				}
				statsSerial = false
				steps[th] = append(steps[th], splitSteps(segs)...)
			}
		}
		n := float64(iters * rounds)
		best := envFloat("PARSTATS_BEST", 1)
		for th := 1; th <= 2; th++ {
			sel := bestSteps(steps[th], best)
			for _, s := range sel {
				agg[th] = agg[th].add(s)
			}
			if best < 1 {
				n = float64(len(sel))
			}
		}
		if best < 1 {
			t.Logf("%s: the fastest %.0f%% of the steps of each (%.0f)", nt.name, 100*best, n)
		}
		t.Logf("%s: %d iterations × %d rounds; step wall 1t %.0f µs, 2t %.0f µs (%.2f×), process CPU 2t %.0f µs (%.2f cores)",
			nt.name, iters, rounds, us(walls[1])/n, us(walls[2])/n, float64(walls[1])/float64(walls[2]), us(procs[2])/n,
			float64(procs[2])/float64(walls[2]))
		t.Log(agg[1].report(agg[2], n))
		if os.Getenv("PARSTATS_SERIAL") != "" {
			t.Log(simReport(bestSteps(steps[1], best), bestSteps(steps[2], best)))
		}
		seg, part := statsCost()
		t.Logf("the accounting's own cost (thread CPU clock and thread id, system calls): %.1f µs a segment, %.1f µs a part (its start and end); "+
			"a segment's and a run's serial time include it", seg, part)
		if os.Getenv("PARSTATS_RUNS") != "" {
			t.Log("one thread:\n" + agg[1].runReport(n))
			t.Log("two threads:\n" + agg[2].runReport(n))
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// envFloat returns the environment variable name as a number in (0, 1],
// or def.
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil && v > 0 && v <= 1 {
		return v
	}
	return def
}

// splitSteps cuts a run of solver steps' segments into one list per step
// (each begins with the solver's clearing, 's clear').
func splitSteps(segs []*segRecord) [][]*segRecord {
	var steps [][]*segRecord
	for i, s := range segs {
		if s.kind == 's' && s.layer == "clear" || i == 0 {
			steps = append(steps, nil)
		}
		steps[len(steps)-1] = append(steps[len(steps)-1], s)
	}
	return steps
}

// bestSteps returns the fraction frac of the steps with the shortest wall
// time (from the first segment's start to the last's end): PARSTATS_BEST
// picks the steps that ran undisturbed on a machine that other processes
// load now and then.
func bestSteps(steps [][]*segRecord, frac float64) [][]*segRecord {
	if frac >= 1 {
		return steps
	}
	wall := func(s []*segRecord) int64 { return s[len(s)-1].t1 - s[0].t0 }
	sorted := slices.Clone(steps)
	slices.SortFunc(sorted, func(a, b []*segRecord) int { return cmp.Compare(wall(a), wall(b)) })
	return sorted[:max(1, int(frac*float64(len(sorted))))]
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// segAgg sums a segment's records over iterations.
type segAgg struct {
	key                 string
	wall, cpu, runWall  int64
	runCPU              int64 // the caller's CPU time within the runs
	runs                int
	busy, cpu2, n       [maxStatsWorkers]int64
	moved, callerMoved  int64
	movedSegs           int64 // segments whose caller changed thread (counted by wall time)
	multi               int64 // runs of more than one part
	wait, late, lateCnt int64
}

type statsAgg struct {
	order []string
	segs  map[string]*segAgg
	// Per run of a segment (key and run index): sums of each part's
	// start, wall time and runs on goroutine 0, and of the run's wall
	// time and the caller's wait.
	runOrder []string
	runs     map[string]*runAgg
}

type runAgg struct {
	count, parts           int
	wall, wait             int64
	before, after          int64 // serial time before the run (from the segment's start or the last run's end) and after it (to the segment's end, the last run only)
	start, partWall, onOne [maxStatsParts]int64
	partCPU                [maxStatsParts]int64
}

func (a *statsAgg) add(segs []*segRecord) *statsAgg {
	if a == nil {
		a = &statsAgg{segs: map[string]*segAgg{}, runs: map[string]*runAgg{}}
	}
	for _, s := range segs {
		key := string(s.kind) + " " + s.layer
		g := a.segs[key]
		if g == nil {
			g = &segAgg{key: key}
			a.segs[key] = g
			a.order = append(a.order, key)
		}
		g.wall += s.t1 - s.t0
		// A caller that changed thread within the segment or one of its
		// runs (it blocked): its threads' clocks say nothing of it (and
		// count what other goroutines ran there); the segment and its
		// runs count their wall time.
		moved := s.tid0 != s.tid1
		for _, r := range s.runs {
			moved = moved || r.tid0 != r.tid1 || r.tid0 != s.tid0
		}
		if moved {
			g.cpu += s.t1 - s.t0
			g.movedSegs++
		} else {
			g.cpu += s.cpu1 - s.cpu0
		}
		for i, r := range s.runs {
			rk := fmt.Sprintf("%s #%d", key, i)
			ra := a.runs[rk]
			if ra == nil {
				ra = &runAgg{}
				a.runs[rk] = ra
				a.runOrder = append(a.runOrder, rk)
			}
			ra.count++
			ra.parts = r.parts
			prev := s.t0
			if i > 0 {
				prev = s.runs[i-1].tEnd
			}
			ra.before += r.t0 - prev
			if i == len(s.runs)-1 {
				ra.after += s.t1 - r.tEnd
			}
			ra.wall += r.tEnd - r.t0
			ra.wait += r.tEnd - r.tOwn
			for p := range min(r.parts, maxStatsParts) {
				ra.start[p] += r.partStart[p]
				ra.partWall[p] += r.partWall[p]
				ra.partCPU[p] += r.partCPU[p]
				if r.partW[p] != 0 {
					ra.onOne[p]++
				}
			}
			g.runs++
			g.runWall += r.tEnd - r.t0
			if moved {
				g.runCPU += r.tEnd - r.t0
			} else {
				g.runCPU += r.c1 - r.c0
			}
			g.wait += r.tEnd - r.tOwn
			for w := range maxStatsWorkers {
				g.busy[w] += r.busy[w]
				g.cpu2[w] += r.cpu[w]
				g.n[w] += int64(r.n[w])
				g.moved += int64(r.moved[w])
			}
			if r.callerMoved {
				g.callerMoved++
			}
			if r.parts > 1 && r.workers > 1 {
				g.multi++
			}
			if r.first[1] != 0 {
				g.late += r.first[1] - r.t0
				g.lateCnt++
			}
		}
	}
	return a
}

// runReport prints each run: its wall time and the caller's wait, then
// each part's mean start / wall time / thread CPU time and the share of
// runs in which goroutine 1 ran it, in µs.
func (a *statsAgg) runReport(n float64) string {
	var sb strings.Builder
	for _, k := range a.runOrder {
		r := a.runs[k]
		c := float64(r.count)
		fmt.Fprintf(&sb, "%-22.22s before %5.1f after %5.1f wall %7.1f wait %6.1f parts %d:", k, float64(r.before)/1e3/c, float64(r.after)/1e3/c,
			float64(r.wall)/1e3/c, float64(r.wait)/1e3/c, r.parts)
		for p := range min(r.parts, maxStatsParts) {
			fmt.Fprintf(&sb, " %.0f/%.0f/%.0f(%.0f%%)", float64(r.start[p])/1e3/c, float64(r.partWall[p])/1e3/c, float64(r.partCPU[p])/1e3/c, 100*float64(r.onOne[p])/c)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// report prints a's segments (one thread) beside b's (two).
// mergeOrder returns the segments of order followed by those of other
// that it lacks, each after the one before it in other: the segments of a
// two-thread step with those that only a one-thread step has (a group
// that runs chained with the next on two threads and alone on one:
// LeNet's conv2 forward, conv1 backward), so that each column sums the
// whole step.
func mergeOrder(order, other []string) []string {
	out := slices.Clone(order)
	prev := -1
	for _, k := range other {
		if i := slices.Index(out, k); i >= 0 {
			prev = i
			continue
		}
		prev++
		out = slices.Insert(out, prev, k)
	}
	return out
}

func (a *statsAgg) report(b *statsAgg, n float64) string {
	var sb strings.Builder
	f := func(v int64) float64 { return float64(v) / 1e3 / n }
	fmt.Fprintf(&sb, "\n%-18s %8s %8s | %8s %8s %5s %8s %8s %8s %7s %6s %9s %6s %8s %8s\n", "segment", "1t-wall", "1t-cpu",
		"2t-wall", "serial", "runs", "runwall", "busy0", "busy1", "wait0", "late1", "parts0/1", "work", "wall0", "wall1")
	var t1, t2, ser, wait, late, c1, c2, moved, callerMoved, movedSegs int64
	var serCPU, runCPU, own0, own1, multi int64
	for _, k := range mergeOrder(b.order, a.order) {
		g, o := b.segs[k], a.segs[k]
		if o == nil {
			o = &segAgg{}
		}
		if g == nil {
			g = &segAgg{}
		}
		work := 0.0
		if o.cpu > 0 {
			work = float64(g.wall-g.runWall+g.cpu2[0]+g.cpu2[1]) / float64(o.cpu)
		}
		fmt.Fprintf(&sb, "%-18.18s %8.1f %8.1f | %8.1f %8.1f %5.1f %8.1f %8.1f %8.1f %7.1f %6.1f %4.1f/%-4.1f %6.3f %8.1f %8.1f\n", k,
			f(o.wall), f(o.cpu), f(g.wall), f(g.wall-g.runWall), float64(g.runs)/n, f(g.runWall), f(g.cpu2[0]), f(g.cpu2[1]),
			f(g.wait), f(g.late), float64(g.n[0])/n, float64(g.n[1])/n, work, f(g.busy[0]), f(g.busy[1]))
		t1, t2, ser, wait, late = t1+o.wall, t2+g.wall, ser+g.wall-g.runWall, wait+g.wait, late+g.late
		c1, c2 = c1+o.cpu, c2+g.wall-g.runWall+g.cpu2[0]+g.cpu2[1]
		moved += g.moved
		callerMoved += g.callerMoved
		movedSegs += g.movedSegs
		serCPU, runCPU, own0, own1 = serCPU+g.cpu-g.runCPU, runCPU+g.runCPU, own0+g.cpu2[0], own1+g.cpu2[1]
		multi += g.multi
	}
	fmt.Fprintf(&sb, "%-18s %8.1f %8s | %8.1f %8.1f %5s %8s %8s %8s %7.1f %6.1f %9s %6.3f\n", "total", f(t1), "", f(t2), f(ser),
		"", "", "", "", f(wait), f(late), "", float64(c2)/float64(c1))
	fmt.Fprintf(&sb, "two threads: the caller's CPU time outside the runs (serial) %.1f µs per iteration, in them %.1f (its parts %.1f, polling %.1f); the other's parts %.1f; %.1f runs of several parts per iteration\n",
		f(serCPU), f(runCPU), f(own0), f(runCPU-own0), f(own1), float64(multi)/n)
	fmt.Fprintf(&sb, "parts that changed thread: %.2f per iteration (their wall time counted as CPU); runs whose caller changed thread since the last: %.2f per iteration; segments whose caller changed thread within them: %.2f per iteration (their wall time counted as CPU)\n",
		float64(moved)/n, float64(callerMoved)/n, float64(movedSegs)/n)
	return sb.String()
}

// simulateRun plays a run whose parts took cost[p] (CPU time, one after
// the other) out on the goroutines of its shares, as the runner deals
// and claims them (each goroutine its share from the front, then the
// others' from the back, the nearest first, the goroutine that is free
// first claiming first), and returns its wall time; it assumes that
// every goroutine starts at once.
func simulateRun(cost []int64, workers int) int64 {
	parts := len(cost)
	shares := min(workers, parts, maxShares)
	if shares <= 1 {
		var sum int64
		for _, c := range cost {
			sum += c
		}
		return sum
	}
	next, end := make([]int, shares), make([]int, shares)
	for i := range shares {
		next[i], end[i] = span(i, shares, parts)
	}
	free := make([]int64, shares)
	done := make([]bool, shares)
	var span int64
	for {
		w := -1
		for i := range shares {
			if !done[i] && (w < 0 || free[i] < free[w]) {
				w = i
			}
		}
		if w < 0 {
			return span
		}
		p := -1
		if next[w] < end[w] {
			p = next[w]
			next[w]++
		} else {
			for i := 1; i < shares; i++ {
				if o := (w + i) % shares; next[o] < end[o] {
					end[o]--
					p = end[o]
					break
				}
			}
		}
		if p < 0 {
			done[w] = true
			continue
		}
		free[w] += cost[p]
		span = max(span, free[w])
	}
}

// simReport compares one thread's steps (CPU time) with two threads'
// played out from their parts' CPU times (PARSTATS_SERIAL): per segment
// that has runs of several parts, and in total.
func simReport(one, two [][]*segRecord) string {
	type simAgg struct{ cpu1, sim, serial, parts int64 }
	var order []string
	aggs := map[string]*simAgg{}
	get := func(s *segRecord) *simAgg {
		key := string(s.kind) + " " + s.layer
		a := aggs[key]
		if a == nil {
			a = &simAgg{}
			aggs[key] = a
			order = append(order, key)
		}
		return a
	}
	var total simAgg
	for _, step := range one {
		for _, s := range step {
			get(s).cpu1 += s.cpu1 - s.cpu0
			total.cpu1 += s.cpu1 - s.cpu0
		}
	}
	long := false
	for _, step := range two {
		for _, s := range step {
			a := get(s)
			serial := s.cpu1 - s.cpu0
			for _, r := range s.runs {
				serial -= r.c1 - r.c0
				if r.ahead {
					// The pooled goroutines' work while the caller
					// works on: counted in neither.
					continue
				}
				if r.parts > maxStatsParts {
					long = true
				}
				cost := r.partCPU[:min(r.parts, maxStatsParts)]
				sim := simulateRun(cost, r.workers)
				a.sim += sim
				total.sim += sim
				for _, c := range cost {
					a.parts += c
					total.parts += c
				}
			}
			a.serial += serial
			a.sim += serial
			total.serial += serial
			total.sim += serial
		}
	}
	n1, n2 := float64(len(one)), float64(len(two))
	var sb strings.Builder
	fmt.Fprintf(&sb, "\ntwo threads played out from their parts' CPU times (µs per iteration):\n%-18s %8s | %8s %8s %8s %6s\n", "segment", "1t-cpu", "2t-sim", "serial", "parts", "1t/2t")
	line := func(k string, a *simAgg) {
		c1, sim := float64(a.cpu1)/1e3/n1, float64(a.sim)/1e3/n2
		fmt.Fprintf(&sb, "%-18s %8.1f | %8.1f %8.1f %8.1f %6.3f\n", k, c1, sim, float64(a.serial)/1e3/n2, float64(a.parts)/1e3/n2, c1/sim)
	}
	for _, k := range order {
		if a := aggs[k]; a.parts != 0 || a.cpu1 > 500e3*int64(n1) || a.sim > 500e3*int64(n2) {
			line(k, a)
		}
	}
	line("total", &total)
	if long {
		fmt.Fprintf(&sb, "(runs of more than %d parts: the rest uncounted)\n", maxStatsParts)
	}
	return sb.String()
}

// TestSimulateRun checks simulateRun's schedules: each goroutine its
// share from the front, then the others' parts from the back.
func TestSimulateRun(t *testing.T) {
	cases := []struct {
		name    string
		cost    []int64
		workers int
		want    int64
	}{
		{"one goroutine", []int64{5, 7, 9}, 1, 21},
		{"even shares", []int64{10, 10, 10, 10}, 2, 20},
		// The first free at 9 (the first of equals claims first) takes
		// the other's last part.
		{"a small last part", []int64{30, 30, 30, 30, 30, 30, 12}, 2, 102},
		// The second takes the first's last part once its own are done.
		{"a slow first part", []int64{40, 10, 10, 10}, 2, 40},
		{"parts of one share taken over", []int64{5, 50, 5, 5}, 2, 55},
		{"more goroutines than parts", []int64{3, 4}, 4, 4},
	}
	for _, c := range cases {
		if got := simulateRun(c.cost, c.workers); got != c.want {
			t.Errorf("%s: simulateRun(%v, %d) = %d, want %d", c.name, c.cost, c.workers, got, c.want)
		}
	}
}

// statsCost returns the accounting's cost, in µs of wall time on one
// locked thread, of a segment (its start, which ends the last one) and of
// a part (partStart and partEnd of a run's part), which the segments'
// and runs' times include.
func statsCost() (seg, part float64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const n = 2000
	statsStart()
	t0 := time.Now()
	for range n {
		statsSegment('x', "cost")
	}
	seg = us(time.Since(t0)) / n
	var r parallelRunner
	r.stats.begin(n, 1)
	t0 = time.Now()
	for p := range n {
		r.stats.partStart(0, p)
		r.stats.partEnd(0, p)
	}
	part = us(time.Since(t0)) / n
	r.stats.end()
	statsStop()
	return seg, part
}
