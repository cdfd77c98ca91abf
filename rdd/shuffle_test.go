package rdd

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// randomPairs returns n pairs with int keys in [0, keys) and int values.
func randomPairs(n, keys int, seed uint64) []Pair {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]Pair, n)
	for i := range out {
		out[i] = Pair{Key: rng.IntN(keys), Value: rng.IntN(100)}
	}
	return out
}

// sumsByKey is ReduceByKey(+) in plain Go, as sorted "k=v" strings.
func sumsByKey(ps []Pair) []string {
	m := map[int]int{}
	for _, p := range ps {
		m[p.Key.(int)] += p.Value.(int)
	}
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%d=%d", k, v))
	}
	sort.Strings(out)
	return out
}

// pairStrings formats collected pairs as sorted "k=v" strings.
func pairStrings(t testing.TB, xs []any) []string {
	t.Helper()
	var out []string
	for _, x := range xs {
		p := x.(Pair)
		out = append(out, fmt.Sprintf("%v=%v", p.Key, p.Value))
	}
	sort.Strings(out)
	return out
}

func addInts(a, b int) int { return a + b }

// TestShuffleFailures injects failures into both sides of a shuffle:
// failed attempts of map and reduce tasks, map output lost between jobs
// (a reset worker) and lost while the reduce stage runs.
func TestShuffleFailures(t *testing.T) {
	ps := randomPairs(2000, 37, 3)
	want := sumsByKey(ps)
	tests := []struct {
		name string
		// fail is called before every attempt; sc is the context.
		fail func(sc *Context, ti TaskInfo) error
		// between runs between a first and a second Collect.
		between func(sc *Context)
		// wantMapReruns is the map tasks that run in the second job.
		wantMapReruns []int
	}{
		{name: "first attempts of map tasks fail", fail: func(_ *Context, ti TaskInfo) error {
			if strings.HasPrefix(ti.StageName, "shuffle") && ti.Attempt == 1 {
				return errInjected
			}
			return nil
		}},
		{name: "first attempts of reduce tasks fail", fail: func(_ *Context, ti TaskInfo) error {
			if !strings.HasPrefix(ti.StageName, "shuffle") && ti.Attempt == 1 {
				return errInjected
			}
			return nil
		}},
		{name: "worker lost between jobs", between: func(sc *Context) {
			if err := sc.ResetWorker(1); err != nil {
				t.Fatal(err)
			}
		}, wantMapReruns: []int{1, 4}},
		{name: "worker lost during the reduce stage", fail: func() func(sc *Context, ti TaskInfo) error {
			var once sync.Once
			return func(sc *Context, ti TaskInfo) error {
				if !strings.HasPrefix(ti.StageName, "shuffle") && ti.Partition == 2 {
					once.Do(func() { sc.ResetWorker(1) })
				}
				return nil
			}
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sc *Context
			o := Options{Master: "local[3]"}
			if tc.fail != nil {
				o.FailTask = func(ti TaskInfo) error { return tc.fail(sc, ti) }
			}
			sc = newTestContextWith(t, o)
			var first recorder
			stop := sc.Subscribe(first.record)
			acc := sc.Accumulator("elements")
			r := sc.Parallelize(ps, 6).Map(func(p Pair) Pair { acc.Add(1); return p }).ReduceByKey(addInts, 4)
			got, err := r.Collect()
			if err != nil {
				t.Fatal(err)
			}
			if g := pairStrings(t, got); !reflect.DeepEqual(g, want) {
				t.Fatalf("got %v, want %v", g, want)
			}
			stop()
			lost := 0
			for _, e := range first.kinds(TaskEnd) {
				if errors.Is(e.Err, errShuffleLost) {
					lost++
				}
			}
			if wantLost := tc.name == "worker lost during the reduce stage"; (lost > 0) != wantLost {
				t.Errorf("%d reduce tasks lost their input; want some: %v", lost, wantLost)
			}
			if tc.between == nil {
				if acc.Value() != float64(len(ps)) && tc.name != "worker lost during the reduce stage" {
					t.Errorf("the accumulator counted %v elements, want %d (each task once)", acc.Value(), len(ps))
				}
				return
			}
			tc.between(sc)
			var rec recorder
			defer sc.Subscribe(rec.record)()
			got, err = r.Collect()
			if err != nil {
				t.Fatal(err)
			}
			if g := pairStrings(t, got); !reflect.DeepEqual(g, want) {
				t.Fatalf("after the loss: got %v, want %v", g, want)
			}
			var reran []int
			for _, e := range rec.kinds(TaskEnd) {
				if strings.HasPrefix(e.StageName, "shuffle") {
					reran = append(reran, e.Partition)
				}
			}
			sort.Ints(reran)
			if !reflect.DeepEqual(reran, tc.wantMapReruns) {
				t.Errorf("map tasks rerun: %v, want %v (the lost worker's)", reran, tc.wantMapReruns)
			}
		})
	}
}

// TestShuffleLostForGood fails the job once the map output is lost on
// every try.
func TestShuffleLostForGood(t *testing.T) {
	var sc *Context
	sc = newTestContextWith(t, Options{Master: "local[2]", FailTask: func(ti TaskInfo) error {
		if !strings.HasPrefix(ti.StageName, "shuffle") {
			sc.ResetWorker(0)
		}
		return nil
	}})
	_, err := sc.Parallelize(randomPairs(100, 5, 1), 4).GroupByKey(2).Collect()
	if !errors.Is(err, errShuffleLost) || !strings.Contains(err.Error(), "lost its shuffle input 4 times") {
		t.Errorf("error %v, want one saying the shuffle input was lost 4 times", err)
	}
}

// TestShuffleSpill runs shuffles over a tiny memory budget: their output
// goes to files, the results are the same, and Close removes the files.
func TestShuffleSpill(t *testing.T) {
	dir := t.TempDir()
	ps := randomPairs(5000, 300, 7)
	for _, budget := range []int64{-1, 4 << 10} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			sc, err := NewContextWith(Options{Master: "local[2]", ShuffleMemory: budget, LocalDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var rec recorder
			sc.Subscribe(rec.record)
			kv := sc.Parallelize(ps, 5)
			got, err := kv.ReduceByKey(addInts, 3).Collect()
			if err != nil {
				t.Fatal(err)
			}
			if g := pairStrings(t, got); !reflect.DeepEqual(g, sumsByKey(ps)) {
				t.Errorf("ReduceByKey over spilled output differs")
			}
			groups, err := kv.GroupByKey(4).Collect()
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, g := range groups {
				n += len(g.(Pair).Value.([]any))
			}
			if n != len(ps) {
				t.Errorf("GroupByKey over spilled output holds %d values, want %d", n, len(ps))
			}
			sorted, err := kv.SortByKey(true, 3).Keys().Collect()
			if err != nil {
				t.Fatal(err)
			}
			if !sort.SliceIsSorted(sorted, func(i, j int) bool { return sorted[i].(int) < sorted[j].(int) }) || len(sorted) != len(ps) {
				t.Errorf("SortByKey over spilled output is not sorted")
			}
			st := sc.ShuffleStats()
			var spilled int64
			for _, e := range rec.kinds(ShuffleWritten) {
				spilled += e.Spilled
			}
			if st.SpillFiles == 0 || st.Spilled == 0 || spilled == 0 {
				t.Errorf("nothing spilled: %+v, %d bytes in events", st, spilled)
			}
			if budget < 0 && st.MemoryBytes != 0 {
				t.Errorf("%d bytes in memory with a budget of 0", st.MemoryBytes)
			}
			if err := sc.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(st.SpillDir); !os.IsNotExist(err) {
				t.Errorf("the spill folder %s is still there after Close: %v", st.SpillDir, err)
			}
		})
	}
}

// TestShuffleOutputKept checks that a shuffle's map stage runs once for
// many jobs and that its output goes with the RDD that reads it.
func TestShuffleOutputKept(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	var maps atomic.Int64
	r := sc.Parallelize(randomPairs(300, 10, 2), 4).Map(func(p Pair) Pair { maps.Add(1); return p }).ReduceByKey(addInts)
	for i := 0; i < 3; i++ {
		if _, err := r.Count(); err != nil {
			t.Fatal(err)
		}
	}
	if maps.Load() != 300 {
		t.Errorf("the map side ran over %d elements in 3 jobs, want 300 (once)", maps.Load())
	}
	if ids := sc.shuffles.shuffleIDs(); len(ids) != 1 {
		t.Errorf("shuffles kept: %v", ids)
	}
}

// TestShuffleEvents checks the ShuffleWritten event and the lineage of a
// shuffled RDD.
func TestShuffleEvents(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	var rec recorder
	defer sc.Subscribe(rec.record)()
	r := sc.Parallelize(randomPairs(100, 7, 4), 3).ReduceByKey(addInts, 2)
	if _, err := r.Collect(); err != nil {
		t.Fatal(err)
	}
	ws := rec.kinds(ShuffleWritten)
	if len(ws) != 1 || ws[0].NumTasks != 3 || ws[0].Records == 0 || ws[0].Records > 21 || ws[0].Bytes <= 0 || ws[0].Shuffle == 0 {
		t.Errorf("ShuffleWritten events %v, want one for 3 map tasks of at most 21 combined records", ws)
	}
	if s := ws[0].String(); !strings.Contains(s, "ShuffleWritten") || !strings.Contains(s, "3 tasks") {
		t.Errorf("event string %q", s)
	}
	if l := r.Lineage(); !strings.Contains(l, "(2) ReduceByKey") || !strings.Contains(l, " +- (3) Parallelize") {
		t.Errorf("lineage:\n%s", l)
	}
}

// TestTakeStopsEarly checks that Take and First compute only what they
// return, through chains of element-wise transformations.
func TestTakeStopsEarly(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	var calls atomic.Int64
	slow := sc.Range(0, 200, 1, 4).Map(func(x int) int { calls.Add(1); return x })
	tests := []struct {
		name  string
		run   func() (any, error)
		want  any
		calls int64
	}{
		{"Take(2)", func() (any, error) { return slow.Take(2) }, []any{0, 1}, 2},
		{"First", func() (any, error) { return slow.First() }, 0, 1},
		{"Filter+Take", func() (any, error) {
			return slow.Filter(func(x int) bool { return x%10 == 9 }).Take(2)
		}, []any{9, 19}, 20},
		{"FlatMap+Take", func() (any, error) {
			return slow.FlatMap(func(x int) []int { return []int{x, x} }).Take(3)
		}, []any{0, 0, 1}, 2},
		{"MapValues+Keys+First", func() (any, error) {
			return slow.KeyBy(func(x int) int { return -x }).MapValues(func(x int) int { return x }).Keys().First()
		}, 0, 1},
		{"IsEmpty", func() (any, error) { return slow.IsEmpty() }, false, 1},
	}
	for _, tc := range tests {
		calls.Store(0)
		got, err := tc.run()
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %v, %v, want %v", tc.name, got, err, tc.want)
		}
		if calls.Load() != tc.calls {
			t.Errorf("%s called the Map function %d times, want %d", tc.name, calls.Load(), tc.calls)
		}
	}
	// Partitions are scanned a few at a time: the first is empty here.
	calls.Store(0)
	got, err := slow.Filter(func(x int) bool { return x >= 60 }).Take(1)
	if err != nil || !reflect.DeepEqual(got, []any{60}) || calls.Load() > 61+50 {
		t.Errorf("Take(1) past an empty partition = %v, %v after %d calls", got, err, calls.Load())
	}
}

// TestAccumulatorRetries checks that a retried task's adds count once.
func TestAccumulatorRetries(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	acc := sc.Accumulator("seen")
	var failed sync.Map
	n, err := sc.Range(0, 300, 1, 6).Map(func(x int) int {
		acc.Add(1)
		if x%50 == 49 {
			if _, again := failed.LoadOrStore(x, true); !again {
				panic("the first attempt of every task fails at its end")
			}
		}
		return x
	}).Count()
	if err != nil || n != 300 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if acc.Value() != 300 {
		t.Errorf("the accumulator counted %v, want 300: failed attempts counted too", acc.Value())
	}
	acc.Add(5) // in the driver
	if acc.Value() != 305 {
		t.Errorf("after an add in the driver: %v", acc.Value())
	}
}

// TestSPMDShuffleFailures injects failures into shuffles on 3 goroutine
// ranks: failed attempts of map and reduce tasks on one rank, a rank that
// loses its map output while the reduce stage runs (the ranks agree to
// run the lost map tasks again), and shuffle output spilled to disk.
func TestSPMDShuffleFailures(t *testing.T) {
	ps := randomPairs(3000, 41, 5)
	want := fmt.Sprint(sumsByKey(ps))
	tests := []struct {
		name   string
		o      func(rank int, sc **Context) Options
		lost   bool // some reduce tasks lose their input
		counts bool // the accumulator counts every element once
	}{
		{"map and reduce attempts fail on rank 1", func(rank int, _ **Context) Options {
			return Options{FailTask: func(ti TaskInfo) error {
				if rank == 1 && ti.Attempt == 1 {
					return errInjected
				}
				return nil
			}}
		}, false, true},
		{"rank 2 loses its map output during the reduce stage", func(rank int, sc **Context) Options {
			var once sync.Once
			return Options{FailTask: func(ti TaskInfo) error {
				if rank == 2 && !strings.HasPrefix(ti.StageName, "shuffle") {
					once.Do(func() { (*sc).ResetWorker(2) })
				}
				return nil
			}}
		}, true, false},
		{"spilled", func(int, **Context) Options { return Options{ShuffleMemory: -1} }, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			comms, err := NewLocalComms(3)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, 3)
			var wg sync.WaitGroup
			for r, c := range comms {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var sc *Context
					o := tc.o(r, &sc)
					o.Engine = NewSPMDEngine(c)
					o.LocalDir = t.TempDir()
					var err error
					if sc, err = NewContextWith(o); err != nil {
						got[r] = err.Error()
						return
					}
					defer sc.Close()
					var rec recorder
					sc.Subscribe(rec.record)
					acc := sc.Accumulator("elements")
					res, err := sc.Parallelize(ps, 7).Map(func(p Pair) Pair { acc.Add(1); return p }).ReduceByKey(addInts, 5).Collect()
					if err != nil {
						got[r] = err.Error()
						return
					}
					lost := 0
					for _, e := range rec.kinds(TaskEnd) {
						if errors.Is(e.Err, errShuffleLost) {
							lost++
						}
					}
					got[r] = fmt.Sprint(pairStrings(t, res), " lost:", lost > 0, " counted:", acc.Value() == float64(len(ps)), " spilled:", sc.ShuffleStats().Spilled > 0)
				}()
			}
			wg.Wait()
			for r, g := range got {
				// Only rank 2's reduce tasks read its lost output; the
				// map tasks that run again count again, as in Spark.
				wantLine := fmt.Sprint(want, " lost:", tc.lost && r == 2, " counted:", tc.counts, " spilled:", tc.name == "spilled")
				if g != wantLine {
					t.Errorf("rank %d: %s\nwant %s", r, g, wantLine)
				}
			}
		})
	}
}
