package rdd

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

func TestMasters(t *testing.T) {
	tests := []struct {
		master  string
		workers int
		err     string
	}{
		{"local", 1, ""},
		{"local[3]", 3, ""},
		{"local[*]", -1, ""},
		{"", -1, ""},
		{"local[0]", 0, "positive integer"},
		{"local[x]", 0, "positive integer"},
		{"yarn", 0, `unknown master "yarn"`},
	}
	for _, tc := range tests {
		t.Run(tc.master, func(t *testing.T) {
			sc, err := NewContext(tc.master)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			if tc.workers > 0 && sc.Workers() != tc.workers {
				t.Errorf("%d workers, want %d", sc.Workers(), tc.workers)
			}
			if sc.Workers() < 1 || sc.DefaultParallelism() != sc.Workers() {
				t.Errorf("%d workers, default parallelism %d", sc.Workers(), sc.DefaultParallelism())
			}
		})
	}
}

// TestTransformations checks every transformation against plain Go on
// the same data, for several worker and partition counts.
func TestTransformations(t *testing.T) {
	const n = 103
	xs := ints(n)
	square := func(x any) any { return x.(int) * x.(int) }
	even := func(x any) bool { return x.(int)%2 == 0 }
	tests := []struct {
		name  string
		build func(sc *Context, parts int) *RDD
		want  func(parts int) []any
	}{
		{"Parallelize", func(sc *Context, parts int) *RDD { return sc.Parallelize(xs, parts) }, func(int) []any { return anys(xs) }},
		{"Range", func(sc *Context, parts int) *RDD { return sc.Range(0, n, 1, parts) }, func(int) []any { return anys(xs) }},
		{"Range step", func(sc *Context, parts int) *RDD { return sc.Range(10, -7, -3, parts) }, func(int) []any { return []any{10, 7, 4, 1, -2, -5} }},
		{"Map", func(sc *Context, parts int) *RDD { return sc.Parallelize(xs, parts).Map(square) }, func(int) []any {
			var out []any
			for _, x := range xs {
				out = append(out, x*x)
			}
			return out
		}},
		{"Filter", func(sc *Context, parts int) *RDD { return sc.Parallelize(xs, parts).Filter(even) }, func(int) []any {
			var out []any
			for _, x := range xs {
				if x%2 == 0 {
					out = append(out, x)
				}
			}
			return out
		}},
		{"FlatMap", func(sc *Context, parts int) *RDD {
			return sc.Parallelize(xs, parts).FlatMap(func(x any) []any {
				k := x.(int) % 3
				out := make([]any, k)
				for i := range out {
					out[i] = fmt.Sprint(x, "/", i)
				}
				return out
			})
		}, func(int) []any {
			var out []any
			for _, x := range xs {
				for i := 0; i < x%3; i++ {
					out = append(out, fmt.Sprint(x, "/", i))
				}
			}
			return out
		}},
		{"MapPartitions", func(sc *Context, parts int) *RDD {
			return sc.Parallelize(xs, parts).MapPartitions(func(it []any) []any {
				s := 0
				for _, x := range it {
					s += x.(int)
				}
				return []any{s}
			})
		}, func(parts int) []any {
			var out []any
			for p := 0; p < parts; p++ {
				s := 0
				for _, x := range xs[p*n/parts : (p+1)*n/parts] {
					s += x
				}
				out = append(out, s)
			}
			return out
		}},
		{"Union", func(sc *Context, parts int) *RDD {
			return sc.Parallelize(xs[:50], parts).Union(sc.Range(1000, 1010, 1, 2), sc.Parallelize([]string{"a", "b"}, 1))
		}, func(int) []any {
			out := anys(xs[:50])
			out = append(out, anys([]int{1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009})...)
			return append(out, "a", "b")
		}},
		{"Zip", func(sc *Context, parts int) *RDD {
			return sc.Parallelize(xs, parts).Zip(sc.Parallelize(xs, parts).Map(square))
		}, func(int) []any {
			var out []any
			for _, x := range xs {
				out = append(out, Pair{x, x * x})
			}
			return out
		}},
		{"Coalesce", func(sc *Context, parts int) *RDD { return sc.Parallelize(xs, parts).Coalesce(2) }, func(int) []any { return anys(xs) }},
		{"Cache", func(sc *Context, parts int) *RDD { return sc.Parallelize(xs, parts).Map(square).Cache() }, func(int) []any {
			var out []any
			for _, x := range xs {
				out = append(out, x*x)
			}
			return out
		}},
	}
	for _, master := range []string{"local", "local[3]"} {
		for _, parts := range []int{1, 4, 7} {
			sc := newTestContext(t, master)
			for _, tc := range tests {
				t.Run(fmt.Sprintf("%s/%s/%d", tc.name, master, parts), func(t *testing.T) {
					r := tc.build(sc, parts)
					got := collect(t, r)
					want := tc.want(parts)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("Collect = %v\nwant      %v", got, want)
					}
					count, err := r.Count()
					if err != nil || count != len(want) {
						t.Errorf("Count = %d, %v; want %d", count, err, len(want))
					}
				})
			}
		}
	}
}

func TestParallelizePartitions(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	xs := ints(10)
	got := partitionsOf(t, sc.Parallelize(xs, 4))
	want := [][]any{anys(xs[0:2]), anys(xs[2:5]), anys(xs[5:7]), anys(xs[7:10])}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("partitions %v, want %v", got, want)
	}
	// The slice is copied.
	ys := []int{1, 2, 3}
	r := sc.Parallelize(ys, 0)
	ys[0] = 100
	if got := collect(t, r); !reflect.DeepEqual(got, []any{1, 2, 3}) {
		t.Errorf("after changing the slice, Collect = %v", got)
	}
	if r.NumPartitions() != sc.DefaultParallelism() {
		t.Errorf("0 partitions became %d, want %d", r.NumPartitions(), sc.DefaultParallelism())
	}
	// Coalesce joins ranges of parent partitions.
	got = partitionsOf(t, sc.Parallelize(xs, 5).Coalesce(2))
	want = [][]any{anys(xs[0:4]), anys(xs[4:10])}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("coalesced partitions %v, want %v", got, want)
	}
	if n := sc.Parallelize(xs, 3).Coalesce(8).NumPartitions(); n != 3 {
		t.Errorf("Coalesce(8) of 3 partitions has %d", n)
	}
}

func TestRepartition(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	xs := ints(1000)
	for _, n := range []int{1, 3, 8} {
		r := sc.Parallelize(xs, 5).Repartition(n)
		parts := partitionsOf(t, r)
		if len(parts) != n {
			t.Fatalf("%d partitions, want %d", len(parts), n)
		}
		var all []int
		for _, p := range parts {
			// Round-robin dealing balances the partitions to within one
			// element per parent partition.
			if len(p) < 1000/n-5 || len(p) > 1000/n+5 {
				t.Errorf("Repartition(%d): a partition of %d elements", n, len(p))
			}
			for _, x := range p {
				all = append(all, x.(int))
			}
		}
		sort.Ints(all)
		if !reflect.DeepEqual(all, xs) {
			t.Errorf("Repartition(%d) lost or duplicated elements", n)
		}
	}
}

func TestActions(t *testing.T) {
	xs := ints(57)
	goSum := 0
	for _, x := range xs {
		goSum += x
	}
	for _, parts := range []int{1, 3, 8, 60} {
		sc := newTestContext(t, "local[2]")
		r := sc.Parallelize(xs, parts)
		t.Run(fmt.Sprint(parts), func(t *testing.T) {
			if n, err := r.Count(); n != len(xs) || err != nil {
				t.Errorf("Count = %d, %v", n, err)
			}
			for _, k := range []int{0, 1, 5, 57, 100} {
				got, err := r.Take(k)
				want := anys(xs[:min(k, len(xs))])
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("Take(%d) = %v, %v; want %v", k, got, err, want)
				}
			}
			if v, err := r.First(); v != 0 || err != nil {
				t.Errorf("First = %v, %v", v, err)
			}
			if v, err := r.Reduce(sumInts); v != goSum || err != nil {
				t.Errorf("Reduce = %v, %v; want %d", v, err, goSum)
			}
			// Fold uses zero once per partition and once more.
			if v, err := r.Fold(1, sumInts); v != goSum+parts+1 || err != nil {
				t.Errorf("Fold = %v, %v; want %d", v, err, goSum+parts+1)
			}
			// Aggregate to (sum, count).
			seq := func(a, x any) any { p := a.([2]int); return [2]int{p[0] + x.(int), p[1] + 1} }
			comb := func(a, b any) any { p, q := a.([2]int), b.([2]int); return [2]int{p[0] + q[0], p[1] + q[1]} }
			if v, err := r.Aggregate([2]int{}, seq, comb); v != [2]int{goSum, len(xs)} || err != nil {
				t.Errorf("Aggregate = %v, %v", v, err)
			}
			// An associative, non-commutative operation shows the order.
			cat := func(a, b any) any { return a.(string) + b.(string) }
			seqCat := func(a, x any) any { return a.(string) + fmt.Sprint(x.(int), ",") }
			var want strings.Builder
			for _, x := range xs {
				fmt.Fprint(&want, x, ",")
			}
			for _, depth := range []int{0, 1, 2, 3} {
				v, err := r.TreeAggregate("", seqCat, cat, depth)
				if err != nil || v != want.String() {
					t.Errorf("TreeAggregate depth %d = %v, %v", depth, v, err)
				}
			}
			if v, err := r.Aggregate("", seqCat, cat); v != want.String() || err != nil {
				t.Errorf("Aggregate of strings = %v, %v", v, err)
			}
			var sum atomic.Int64
			if err := r.Foreach(func(x any) { sum.Add(int64(x.(int))) }); err != nil || sum.Load() != int64(goSum) {
				t.Errorf("Foreach summed %d, %v", sum.Load(), err)
			}
			var sizes atomic.Int64
			var calls atomic.Int64
			if err := r.ForeachPartition(func(it []any) { sizes.Add(int64(len(it))); calls.Add(1) }); err != nil || sizes.Load() != int64(len(xs)) || calls.Load() != int64(parts) {
				t.Errorf("ForeachPartition: %d calls, %d elements, %v", calls.Load(), sizes.Load(), err)
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	r := sc.Parallelize([]int{}, 3)
	if _, err := r.Reduce(sumInts); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Reduce of empty: %v", err)
	}
	if _, err := r.First(); err == nil {
		t.Error("First of empty: no error")
	}
	if v, err := r.Fold(0, sumInts); v != 0 || err != nil {
		t.Errorf("Fold of empty = %v, %v", v, err)
	}
	if got := collect(t, r); len(got) != 0 {
		t.Errorf("Collect of empty = %v", got)
	}
}

func TestBadArguments(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	other := newTestContext(t, "local")
	r := sc.Parallelize(ints(10), 2)
	tests := []struct {
		name string
		r    *RDD
		msg  string
	}{
		{"Parallelize int", sc.Parallelize(5, 2), "needs a slice"},
		{"Range step 0", sc.Range(0, 5, 0, 2), "step"},
		{"Map nil", r.Map(nil), "needs a function"},
		{"Sample fraction", r.Sample(false, 1.5, 1), "fraction 1.5"},
		{"RandomSplit weights", r.RandomSplit([]float64{1, -1}, 1)[0], "weights"},
		{"Zip partitions", r.Zip(sc.Parallelize(ints(10), 3)), "partition counts"},
		{"Zip lengths", r.Zip(sc.Parallelize(ints(11), 2)), "equal counts"},
		{"Union contexts", r.Union(other.Parallelize(ints(3), 1)), "different Contexts"},
		{"Coalesce 0", r.Coalesce(0), "at least 1"},
		{"Repartition -1", r.Repartition(-1), "at least 1"},
		{"child of bad", sc.Parallelize(5, 2).Map(func(x any) any { return x }), "needs a slice"},
		{"Persist level", sc.Parallelize(ints(3), 1).Persist(7), "storage level"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.r.Count()
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Count error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
	if _, err := r.Reduce(nil); err == nil {
		t.Error("Reduce(nil): no error")
	}
}

func TestLineage(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	base := sc.Parallelize(ints(10), 2).SetName("numbers").Cache()
	r := base.Map(func(x any) any { return x }).Repartition(3)
	if _, err := r.Count(); err != nil {
		t.Fatal(err)
	}
	got := r.Lineage()
	for _, want := range []string{"(3) Repartition", "+- (2) Map", "numbers (Parallelize)", "MemoryOnly, 2 cached"} {
		if !strings.Contains(got, want) {
			t.Errorf("lineage %q lacks %q", got, want)
		}
	}
	base.Unpersist()
	if n := base.CachedPartitions(); n != 0 || base.StorageLevel() != None {
		t.Errorf("after Unpersist: %d cached, level %v", n, base.StorageLevel())
	}
}

func TestAccessors(t *testing.T) {
	sc := newTestContextWith(t, Options{Master: "local[3]", MaxAttempts: 2})
	if sc.Master() != "local[3]" || sc.MaxAttempts() != 2 || sc.Engine().Workers() != 3 || !strings.Contains(sc.String(), "local[3]") {
		t.Errorf("context %v, max attempts %d", sc, sc.MaxAttempts())
	}
	r := sc.Parallelize([]string{"a", "b", "c"}, 2).SetName("letters")
	if r.Context() != sc || r.Name() != "letters" || !strings.Contains(r.String(), "letters (Parallelize)") || r.Err() != nil {
		t.Errorf("RDD %v", r)
	}
	res, err := r.RunPartitions(nil, func(tc *TaskContext) (any, error) {
		info := tc.Info()
		if info.Partition != tc.Partition() || info.Attempt != tc.Attempt() || tc.Context().Err() != nil || tc.Samples() != nil {
			return nil, fmt.Errorf("task context %+v", info)
		}
		return fmt.Sprint(tc.Elements()), nil
	})
	if err != nil || !reflect.DeepEqual(res, []any{"[a]", "[b c]"}) {
		t.Errorf("elements %v, %v", res, err)
	}
	if _, err := NewContextWith(Options{MaxAttempts: -1}); err == nil {
		t.Error("negative MaxAttempts: no error")
	}
	bc, _ := sc.Broadcast(1)
	acc := sc.Accumulator("n")
	acc.Add(2.5)
	for _, s := range []fmt.Stringer{bc, acc, MemoryOnly, TaskEnd} {
		if s.String() == "" {
			t.Errorf("%T prints nothing", s)
		}
	}
	if bc.ID() < 1 || acc.String() != "Accumulator(n: 2.5)" {
		t.Errorf("broadcast %d, accumulator %v", bc.ID(), acc)
	}
}

// TestNegativePartitions checks that a negative number of partitions is
// an error (0 is the default parallelism), from the constructors and the
// sources alike.
func TestNegativePartitions(t *testing.T) {
	sc, err := NewContext("local[2]")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for name, r := range map[string]*RDD{
		"Parallelize":        sc.Parallelize([]int{1, 2, 3}, -1),
		"Range":              sc.Range(0, 10, 1, -2),
		"ParallelizeSamples": sc.ParallelizeSamples(&data.Samples{N: 1, C: 1, H: 1, W: 1, Pixels: []uint8{1}, Labels: []float32{0}}, -3),
	} {
		if _, err := r.Count(); err == nil || !strings.Contains(err.Error(), "want at least 1") {
			t.Errorf("%s with negative partitions: Count error %v", name, err)
		}
	}
	if r := sc.Parallelize([]int{1, 2, 3}, 0); r.NumPartitions() != sc.DefaultParallelism() {
		t.Errorf("Parallelize(..., 0) has %d partitions, want the default %d", r.NumPartitions(), sc.DefaultParallelism())
	}
	if _, err := sc.TextFile("no-such-file", -1); err == nil || !strings.Contains(err.Error(), "want at least 1") {
		t.Errorf("TextFile with negative partitions: %v", err)
	}
}
