package caffe

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRunnerOffers runs parts that offer a task each (parallelRunner.offer)
// on one and on two goroutines, with the offers taken as they come and
// with every offer taken by another goroutine than the offering one
// (helpForced): every task must have run exactly once when the run
// returns, and a panic in a task taken by another goroutine must reach
// the caller.
func TestRunnerOffers(t *testing.T) {
	defer func(v bool) { helpForced = v }(helpForced)
	const parts = 12
	for _, workers := range []int{1, 2} {
		for _, forced := range []bool{false, true} {
			t.Run(fmt.Sprintf("workers=%d/forced=%v", workers, forced), func(t *testing.T) {
				helpForced = forced && workers > 1
				var r parallelRunner
				var offeredBy, ranBy [parts]atomic.Int32
				var runs [parts]atomic.Int32
				task := func(w, a int) {
					runs[a].Add(1)
					ranBy[a].Store(int32(w))
				}
				r.helpFn = task
				var sink atomic.Int64
				fn := func(w, p int) {
					offeredBy[p].Store(int32(w))
					k := r.offer(p)
					if workers == 1 && k >= 0 {
						t.Errorf("part %d: a run on one goroutine took an offer", p)
					}
					s := int64(0)
					for i := range 20000 * (p + 1) {
						s += int64(i ^ p)
					}
					sink.Add(s)
					if r.reclaim(w, k) {
						task(w, p)
					}
				}
				for range 20 {
					r.run(workers, parts, fn)
					for p := range parts {
						if n := runs[p].Swap(0); n != 1 {
							t.Fatalf("task %d ran %d times", p, n)
						}
						if helpForced && ranBy[p].Load() == offeredBy[p].Load() {
							t.Fatalf("task %d ran on goroutine %d, which offered it", p, ranBy[p].Load())
						}
					}
				}
				if workers == 1 || !forced {
					return
				}
				r.helpFn = func(w, a int) {
					if a == parts-1 {
						panic("task failed")
					}
				}
				defer func() {
					v := recover()
					if s, _ := v.(string); !strings.Contains(s, "task failed") {
						t.Errorf("run with a failing task: recovered %v", v)
					}
				}()
				r.run(workers, parts, func(w, p int) { r.reclaim(w, r.offer(p)) })
				t.Error("run with a failing task returned")
			})
		}
	}
}
