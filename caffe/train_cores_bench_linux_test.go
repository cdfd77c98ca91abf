package caffe

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkTrainCores measures two threads against what the machine's two
// cores can give, for machines (virtual ones above all) whose cores do not
// run at the same speed: in one process it trains LeNet and CIFAR-10 quick
// on one thread pinned to the first CPU the process may use, on one
// thread pinned to the second, on two threads unpinned, and on the two
// pinned solvers at once, each on its core, the settings taking turns a
// block of iterations at a time. It reports each one's median wall time
// per iteration, two threads' speedup over each pinned thread, and the
// share of the balanced bound that two threads reach: two cores that take
// t0 and t1 for an iteration alone can at best take 1/(1/t0 + 1/t1)
// together, when each does the share of the work its speed allows and
// nothing else is lost (an unpinned one-thread figure instead depends on
// which core the thread happened to run). The pinned pair's times give the
// same bound for cores that run side by side (pair-share): two
// independent trainings share the machine's caches, memory bandwidth and
// clock as two threads do, and nothing else, so pair-share is what two
// threads lose to splitting one training's work:
//
//	go test -run '^$' -bench TrainCores -benchtime 40x ./caffe
func BenchmarkTrainCores(b *testing.B) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		b.Skip("no CPU affinity:", err)
	}
	var cpus []int
	for c := 0; c < len(all)*64 && len(cpus) < 2; c++ {
		if all.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		b.Skip("needs two CPUs")
	}
	for _, nt := range switchNets {
		b.Run(nt.name, func(b *testing.B) {
			ctx := context.Background()
			threads := []int{1, 1, 2}
			solvers := make([]*Solver, len(threads))
			for m, th := range threads {
				solvers[m] = benchSolver(b, nt.model, nt.c, nt.h, nt.w, th)
				solvers[m].Net().SetKeepTops(false)
				if err := solvers[m].Step(ctx, 2); err != nil {
					b.Fatal(err)
				}
			}
			// steps runs solver m's block, its thread pinned to cpus[m]
			// for a one-thread solver, and returns the wall time per
			// iteration.
			steps := func(m int) time.Duration {
				if threads[m] == 1 {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					var one unix.CPUSet
					one.Set(cpus[m])
					if err := unix.SchedSetaffinity(0, &one); err != nil {
						b.Fatal(err)
					}
					defer func() {
						if err := unix.SchedSetaffinity(0, &all); err != nil {
							b.Fatal(err)
						}
					}()
				}
				t0 := time.Now()
				if err := solvers[m].Step(ctx, nt.block); err != nil {
					b.Fatal(err)
				}
				return time.Since(t0) / time.Duration(nt.block)
			}
			// pair runs the two pinned solvers' blocks at once, each
			// on its core, and returns their wall times per iteration.
			pair := func() (a, b float64) {
				done := make(chan float64)
				go func() { done <- float64(steps(1)) / 1e3 }()
				a = float64(steps(0)) / 1e3
				return a, <-done
			}
			times := make([][]float64, len(threads)+2)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				for o := range len(threads) + 1 {
					m := (i + o) % (len(threads) + 1)
					if m == len(threads) {
						pa, pb := pair()
						times[m] = append(times[m], pa)
						times[m+1] = append(times[m+1], pb)
						continue
					}
					times[m] = append(times[m], float64(steps(m))/1e3)
				}
			}
			var med [5]float64
			for m := range times {
				slices.Sort(times[m])
				med[m] = times[m][len(times[m])/2]
			}
			bound := 1 / (1/med[0] + 1/med[1])
			pairBound := 1 / (1/med[3] + 1/med[4])
			b.ReportMetric(med[0], "1t-cpuA-µs")
			b.ReportMetric(med[1], "1t-cpuB-µs")
			b.ReportMetric(med[2], "2t-µs")
			b.ReportMetric(min(med[0], med[1])/med[2], "2t/fast-1t")
			b.ReportMetric(max(med[0], med[1])/med[2], "2t/slow-1t")
			b.ReportMetric(bound/med[2], "bound-share")
			b.ReportMetric(med[3], "pair-cpuA-µs")
			b.ReportMetric(med[4], "pair-cpuB-µs")
			b.ReportMetric(pairBound/med[2], "pair-share")
		})
	}
}
