package rdd

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

// TestTypedCallbacks runs every transformation and action with functions
// of the elements' own types, and with func(any) any.
func TestTypedCallbacks(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	xs := sc.Parallelize(ints(20), 3)
	words := sc.Parallelize([]string{"a b", "c", "", "d e f"}, 2)
	type point struct{ X, Y float64 }
	tests := []struct {
		name string
		run  func() (any, error)
		want any
	}{
		{"Map int", func() (any, error) { return xs.Map(func(x int) int { return 2 * x }).Take(3) }, []any{0, 2, 4}},
		{"Map any", func() (any, error) { return xs.Map(func(x any) any { return x.(int) + 1 }).Take(2) }, []any{1, 2}},
		{"Map to struct", func() (any, error) {
			return xs.Map(func(x int) point { return point{float64(x), 1} }).Map(func(p point) float64 { return p.X + p.Y }).Take(2)
		}, []any{1.0, 2.0}},
		{"Filter string", func() (any, error) {
			return words.Filter(func(s string) bool { return len(s) > 1 }).Collect()
		}, []any{"a b", "d e f"}},
		{"FlatMap", func() (any, error) { return words.FlatMap(strings.Fields).Collect() }, []any{"a", "b", "c", "d", "e", "f"}},
		{"FlatMap to array", func() (any, error) {
			return xs.FlatMap(func(x int) [2]int { return [2]int{x, -x} }).Take(4)
		}, []any{0, 0, 1, -1}},
		{"Reduce float64", func() (any, error) {
			return xs.Map(func(x int) float64 { return float64(x) / 2 }).Reduce(func(a, b float64) float64 { return a + b })
		}, 95.0},
		{"Reduce via reflection", func() (any, error) {
			return xs.Map(func(x int) point { return point{1, float64(x)} }).Reduce(func(a, b point) point { return point{a.X + b.X, a.Y + b.Y} })
		}, point{20, 190}},
		{"Fold converts an int zero", func() (any, error) {
			return xs.Map(func(x int) float64 { return float64(x) }).Fold(0, func(a, b float64) float64 { return a + b })
		}, 190.0},
		{"Aggregate", func() (any, error) {
			return words.Aggregate(0, func(n int, s string) int { return n + len(s) }, func(a, b int) int { return a + b })
		}, 9},
		{"MapPartitions typed", func() (any, error) {
			return xs.MapPartitions(func(p []int) []int { return []int{len(p)} }).Collect()
		}, []any{6, 7, 7}},
		{"MapPartitionsWithIndex typed", func() (any, error) {
			return words.MapPartitionsWithIndex(func(i int, p []string) []string { return []string{strings.Repeat("x", i)} }).Collect()
		}, []any{"", "x"}},
		{"KeyBy and Lookup", func() (any, error) {
			return xs.KeyBy(func(x int) bool { return x%2 == 0 }).ReduceByKey(func(a, b int) int { return a + b }).Lookup(true)
		}, []any{90}},
	}
	for _, tc := range tests {
		got, err := tc.run()
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %v (%T), %v; want %v", tc.name, got, got, err, tc.want)
		}
	}
	seen := 0
	if err := sc.Parallelize(ints(5), 1).Foreach(func(x int) { seen += x }); err != nil || seen != 10 {
		t.Errorf("Foreach: %d, %v", seen, err)
	}
	var parts [][]string
	if err := words.ForeachPartition(func(p []string) { parts = append(parts, p) }); err != nil || len(parts) != 2 {
		t.Errorf("ForeachPartition: %v, %v", parts, err)
	}
}

// TestCallbackTypeErrors checks that functions of the wrong shape, and
// elements a function cannot take, are errors that name both types.
func TestCallbackTypeErrors(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	xs := sc.Parallelize(ints(10), 2)
	words := sc.Parallelize([]string{"a", "b", "c"}, 2)
	run := func(r *RDD) error { _, err := r.Collect(); return err }
	tests := []struct {
		name  string
		err   error
		wants []string
		once  bool // the failing task is not retried
	}{
		{"Map nil", run(xs.Map(nil)), []string{"Map needs a function such as func(x int) int, got nil"}, false},
		{"Map not a function", run(xs.Map(5)), []string{"Map needs a function", "got int (5)"}, false},
		{"Map two arguments", run(xs.Map(func(a, b int) int { return a })), []string{"Map needs a function of 1 argument with 1 result", "got func(int, int) int"}, false},
		{"Filter not bool", run(xs.Filter(func(x int) int { return x })), []string{"Filter needs a function returning a bool", "func(int) int"}, false},
		{"FlatMap not a slice", run(words.FlatMap(func(s string) string { return s })), []string{"FlatMap needs a function returning a slice"}, false},
		{"Map wrong element type", run(words.Map(func(x int) int { return x })), []string{"Map: the function takes int, but element 0 of partition 0 is string (\"a\")"}, true},
		{"Filter wrong element type", run(xs.Filter(func(s string) bool { return s != "" })), []string{"Filter: the function takes string, but element 0 of partition 0 is int (0)"}, true},
		{"Map wrong type later", run(sc.Parallelize([]any{1, 2, "three"}, 1).Map(func(x int) int { return x })), []string{"takes int, but element 2 of partition 0 is string (\"three\")"}, true},
		{"Reduce wrong result", func() error {
			_, err := xs.Reduce(func(a, b int) string { return "" })
			return err
		}(), []string{"Reduce needs a function whose result has the type of its first argument", "func(int, int) string"}, false},
		{"Reduce wrong element", func() error {
			_, err := xs.Reduce(func(a, b float64) float64 { return a + b })
			return err
		}(), []string{"Reduce: the function takes float64, but element 0 of partition 0 is int (0)"}, true},
		{"Fold bad zero", func() error {
			_, err := xs.Fold("zero", func(a, b int) int { return a + b })
			return err
		}(), []string{"Fold: the function takes int, but the zero value is string (\"zero\")"}, false},
		{"Fold lossy zero", func() error {
			_, err := xs.Fold(1.5, func(a, b int) int { return a + b })
			return err
		}(), []string{"the zero value is float64 (1.5)"}, false},
		{"ReduceByKey not pairs", run(xs.ReduceByKey(func(a, b int) int { return a + b })), []string{"ReduceByKey: needs an RDD of rdd.Pair elements", "element 0 of partition 0 is int (0)"}, true},
		{"ReduceByKey slice keys", run(xs.KeyBy(func(x int) []int { return []int{x} }).ReduceByKey(func(a, b int) int { return a + b })), []string{"keys must be comparable", "unhashable type: []int"}, true},
		{"GroupByKey slice keys", run(xs.KeyBy(func(x int) []int { return []int{x} }).GroupByKey()), []string{"keys must be comparable", "the key of element 0 of partition 0 is []int"}, true},
		{"SortByKey mixed keys", run(sc.Parallelize([]Pair{{Key: 1}, {Key: "a"}}, 1).SortByKey(true)), []string{"keys must be of one ordered type", "int (1)", "string (\"a\")", "cannot be ordered against"}, false},
		{"ReduceByKey two counts", run(xs.KeyBy(func(x int) int { return x }).ReduceByKey(func(a, b int) int { return a }, 2, 3)), []string{"at most one partition count"}, false},
		{"Aggregate zero with hidden references", func() error {
			type hidden struct{ xs []int }
			_, err := xs.Aggregate(hidden{}, func(h hidden, x int) hidden { return h }, func(a, b hidden) hidden { return a })
			return err
		}(), []string{"cannot copy the zero value", "unexported field xs", "pass a function that returns a new zero value"}, false},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(tc.err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, tc.err, w)
			}
		}
		var te *TaskError
		if tc.once && (!errors.As(tc.err, &te) || te.Attempts != 1) {
			t.Errorf("%s: %v was retried", tc.name, tc.err)
		}
		if strings.Contains(tc.name, "type") && !errors.Is(tc.err, ErrType) && !strings.Contains(tc.name, "keys") {
			t.Errorf("%s: %v does not wrap ErrType", tc.name, tc.err)
		}
	}
}

// TestZeroValues checks that every partition gets its own copy of a
// mutable zero value, as Spark does: a histogram with a []int zero is
// exact, whatever the number of partitions.
func TestZeroValues(t *testing.T) {
	s, err := data.NewSamples(1000, 1, 1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, 10)
	for i := range s.Labels {
		s.Labels[i] = float32(i * 7 % 10)
		want[i*7%10]++
	}
	sc := newTestContext(t, "local[3]")
	seq := func(h []int, x data.Sample) []int { h[int(x.Label)]++; return h }
	comb := func(a, b []int) []int {
		for i := range a {
			a[i] += b[i]
		}
		return a
	}
	type hist struct{ Counts map[int]int }
	for _, parts := range []int{1, 3, 7} {
		r := sc.ParallelizeSamples(s, parts)
		zero := make([]int, 10)
		got, err := r.Aggregate(zero, seq, comb)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Aggregate over %d partitions = %v, %v; want %v", parts, got, err, want)
		}
		if !reflect.DeepEqual(zero, make([]int, 10)) {
			t.Errorf("the zero value was modified: %v", zero)
		}
		got, err = r.TreeAggregate(make([]int, 10), seq, comb, 2)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("TreeAggregate over %d partitions = %v, %v", parts, got, err)
		}
		got, err = r.Aggregate(func() []int { return make([]int, 10) }, seq, comb)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Aggregate with a zero factory over %d partitions = %v, %v", parts, got, err)
		}
		got, err = r.Aggregate(&hist{Counts: map[int]int{}}, func(h *hist, x data.Sample) *hist {
			h.Counts[int(x.Label)]++
			return h
		}, func(a, b *hist) *hist {
			for k, v := range b.Counts {
				a.Counts[k] += v
			}
			return a
		})
		if h, ok := got.(*hist); err != nil || !ok || h.Counts[3] != want[3] || h.Counts[0] != want[0] {
			t.Errorf("Aggregate with a pointer to a map over %d partitions = %v, %v", parts, got, err)
		}
	}
}
