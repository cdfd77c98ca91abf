package rdd

import (
	"runtime"
	"testing"
)

// newTestContext returns a context closed at the end of the test.
func newTestContext(t testing.TB, master string) *Context {
	t.Helper()
	sc, err := NewContext(master)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	return sc
}

// newTestContextWith returns a context made from o, closed at the end of
// the test.
func newTestContextWith(t testing.TB, o Options) *Context {
	t.Helper()
	sc, err := NewContextWith(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	return sc
}

// ints returns 0..n-1.
func ints(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// anys boxes ints.
func anys(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func sumInts(a, b any) any { return a.(int) + b.(int) }

// collect runs Collect and fails the test on error.
func collect(t testing.TB, r *RDD) []any {
	t.Helper()
	out, err := r.Collect()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// partitionsOf returns the elements of every partition.
func partitionsOf(t testing.TB, r *RDD) [][]any {
	t.Helper()
	tagged := collect(t, r.MapPartitionsWithIndex(func(p int, it []any) []any {
		return []any{Pair{p, it}}
	}))
	out := make([][]any, r.NumPartitions())
	for _, v := range tagged {
		pr := v.(Pair)
		out[pr.Key.(int)] = pr.Value.([]any)
	}
	return out
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
