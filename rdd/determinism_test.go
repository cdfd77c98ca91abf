package rdd

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

// TestDeterminism checks that seeded operations give the same partitions
// whatever the number of workers and however often they run.
func TestDeterminism(t *testing.T) {
	xs := ints(2000)
	ops := []struct {
		name string
		f    func(sc *Context) *RDD
	}{
		{"Sample", func(sc *Context) *RDD { return sc.Parallelize(xs, 6).Sample(false, 0.3, 42) }},
		{"Sample with replacement", func(sc *Context) *RDD { return sc.Parallelize(xs, 6).Sample(true, 1.5, 42) }},
		{"RandomSplit", func(sc *Context) *RDD { return sc.Parallelize(xs, 6).RandomSplit([]float64{1, 2, 3}, 7)[1] }},
		{"Repartition", func(sc *Context) *RDD { return sc.Parallelize(xs, 6).Repartition(4) }},
		{"samples", func(sc *Context) *RDD {
			return sc.ParallelizeSamples(testSamples(t, 300), 5).Sample(false, 0.5, 3).Repartition(3).Map(func(x any) any { return x })
		}},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			var first [][]any
			for _, master := range []string{"local", "local[2]", "local[5]", "local[2]"} {
				sc := newTestContext(t, master)
				got := partitionsOf(t, op.f(sc))
				if first == nil {
					first = got
					continue
				}
				if !reflect.DeepEqual(got, first) {
					t.Errorf("%s gave other partitions than local", master)
				}
			}
		})
	}
}

func TestSampleProperties(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	xs := ints(10000)
	r := sc.Parallelize(xs, 4)
	tests := []struct {
		name        string
		replacement bool
		fraction    float64
	}{
		{"none", false, 0},
		{"tenth", false, 0.1},
		{"all", false, 1},
		{"half with replacement", true, 0.5},
		{"double with replacement", true, 2},
		{"many with replacement", true, 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := collect(t, r.Sample(tc.replacement, tc.fraction, 9))
			want := tc.fraction * float64(len(xs))
			// Within 5 standard deviations (sqrt of n·f·(1-f), or n·f for
			// Poisson counts).
			sd := math.Sqrt(float64(len(xs)) * tc.fraction * math.Max(1-tc.fraction, 0))
			if tc.replacement {
				sd = math.Sqrt(want)
			}
			if math.Abs(float64(len(got))-want) > 5*sd+0.5 {
				t.Errorf("sampled %d, want about %v", len(got), want)
			}
			// Elements come in input order; without replacement each at
			// most once.
			for i := 1; i < len(got); i++ {
				a, b := got[i-1].(int), got[i].(int)
				if b < a || (!tc.replacement && a == b) {
					t.Fatalf("sample out of order at %d: %d then %d", i, a, b)
				}
			}
		})
	}
	if reflect.DeepEqual(collect(t, r.Sample(false, 0.5, 1)), collect(t, r.Sample(false, 0.5, 2))) {
		t.Error("different seeds gave the same sample")
	}
}

func TestRandomSplitProperties(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	xs := ints(3000)
	weights := []float64{0.5, 0.25, 0.25, 0}
	splits := sc.Parallelize(xs, 5).RandomSplit(weights, 11)
	var all []int
	for i, s := range splits {
		got := collect(t, s)
		want := weights[i] * float64(len(xs))
		if math.Abs(float64(len(got))-want) > 5*math.Sqrt(want*(1-weights[i]))+0.5 {
			t.Errorf("split %d has %d elements, want about %v", i, len(got), want)
		}
		for _, x := range got {
			all = append(all, x.(int))
		}
	}
	sort.Ints(all)
	if !reflect.DeepEqual(all, xs) {
		t.Error("the splits are not disjoint and complete")
	}
	// Samples stay typed through a split.
	ss := sc.ParallelizeSamples(testSamples(t, 100), 3).RandomSplit([]float64{1, 1}, 5)
	n := 0
	for _, s := range ss {
		if !s.IsSamples() {
			t.Error("split of samples is not samples")
		}
		got, err := s.CollectSamples()
		if err != nil {
			t.Fatal(err)
		}
		n += got.N
	}
	if n != 100 {
		t.Errorf("sample splits hold %d of 100", n)
	}
}

func TestSampleRDDsStayTyped(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	s := testSamples(t, 40)
	r := sc.ParallelizeSamples(s, 4)
	tests := []struct {
		name string
		r    *RDD
		want []float32 // labels
	}{
		{"Filter", r.Filter(func(x any) bool { return int(x.(data.Sample).Label)%3 == 0 }), labelsWhere(40, func(i int) bool { return i%3 == 0 })},
		{"Union", r.Filter(func(x any) bool { return x.(data.Sample).Label < 2 }).Union(r.Filter(func(x any) bool { return x.(data.Sample).Label >= 38 })), []float32{0, 1, 38, 39}},
		{"Coalesce", r.Coalesce(3), labelsWhere(40, func(int) bool { return true })},
		{"Repartition", r.Repartition(1), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.r.IsSamples() {
				t.Fatal("not an RDD of samples")
			}
			got, err := tc.r.CollectSamples()
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && !reflect.DeepEqual(got.Labels, tc.want) {
				t.Errorf("labels %v, want %v", got.Labels, tc.want)
			}
			for k, l := range got.Labels {
				i := int(l)
				if !reflect.DeepEqual(got.Pixels[k*4:(k+1)*4], s.Pixels[i*4:(i+1)*4]) {
					t.Fatalf("sample %d (label %d) has pixels %v", k, i, got.Pixels[k*4:(k+1)*4])
				}
			}
		})
	}
	if r.Map(func(x any) any { return x }).IsSamples() {
		t.Error("Map result claims to be samples")
	}
	if _, err := sc.Range(0, 3, 1, 1).CollectSamples(); err == nil {
		t.Error("CollectSamples of ints: no error")
	}
	first, err := r.First()
	if err != nil || fmt.Sprint(first.(data.Sample).Pixels) != fmt.Sprint(s.Pixels[:4]) {
		t.Errorf("First = %v, %v", first, err)
	}
}

func labelsWhere(n int, keep func(int) bool) []float32 {
	var out []float32
	for i := 0; i < n; i++ {
		if keep(i) {
			out = append(out, float32(i))
		}
	}
	return out
}
