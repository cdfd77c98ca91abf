package spmdtest

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

// KeyValue runs every key-value operation, the typed callbacks and the
// corrected actions on random data, compares each result with the same
// computation in plain Go, and describes what it found, one line per
// check: "NAME ok DIGEST" (DIGEST fingerprints the result in the order
// the RDD returned it, so that engines can be compared too) or "NAME
// MISMATCH ...". Every rank of an SPMD job calls it at once.
func KeyValue(sc *rdd.Context, seed uint64) string {
	c := &checker{}
	rng := rand.New(rand.NewPCG(seed, 15))
	if err := rdd.Register([2]int{}); err != nil {
		c.fail("Register", err.Error())
	}

	// Random pairs: int keys in [0, 60) with repeats, int values.
	pairs := make([]rdd.Pair, 3000)
	for i := range pairs {
		pairs[i] = rdd.Pair{Key: rng.IntN(60), Value: rng.IntN(1000) - 500}
	}
	// Pairs whose keys overlap half of the first set's, for joins.
	others := make([]rdd.Pair, 700)
	for i := range others {
		others[i] = rdd.Pair{Key: 30 + rng.IntN(60), Value: fmt.Sprintf("w%d", rng.IntN(100))}
	}
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("word%02d", (i*7)%40)
	}
	lines := make([]string, 400)
	for i := range lines {
		n := rng.IntN(8)
		ws := make([]string, n)
		for j := range ws {
			ws[j] = vocab[rng.IntN(len(vocab))]
		}
		lines[i] = strings.Join(ws, " ")
	}
	floats := make([]float64, 2000)
	for i := range floats {
		floats[i] = rng.NormFloat64()
	}

	kv := sc.Parallelize(pairs, 5).Cache()
	ov := sc.Parallelize(others, 3)
	add := func(a, b int) int { return a + b }

	// Typed callbacks.
	xs := sc.Range(0, 500, 1, 4)
	got, err := xs.Map(func(x int) int { return 3 * x }).Filter(func(x int) bool { return x%2 == 0 }).Collect()
	want := []any{}
	for x := 0; x < 500; x++ {
		if 3*x%2 == 0 {
			want = append(want, 3*x)
		}
	}
	c.ordered("Map+Filter typed", got, err, want)
	got, err = sc.Parallelize(lines, 4).FlatMap(strings.Fields).Collect()
	want = nil
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			want = append(want, w)
		}
	}
	c.ordered("FlatMap typed", got, err, want)
	sum, err := sc.Parallelize(floats, 6).Reduce(func(a, b float64) float64 { return a + b })
	c.near("Reduce typed", sum, err, sumFloats(floats))
	got, err = sc.Parallelize(lines, 3).MapPartitions(func(ls []string) []int {
		return []int{len(ls)}
	}).Collect()
	c.ordered("MapPartitions typed", got, err, []any{133, 133, 134})

	// Word count.
	counts, err := sc.Parallelize(lines, 4).FlatMap(strings.Fields).
		Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
		ReduceByKey(add).Collect()
	wc := map[any]int{}
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			wc[w]++
		}
	}
	c.pairsEqual("word count", counts, err, mapPairs(wc))

	// ByKey aggregations.
	sums := map[any]int{}
	groups := map[any][]any{}
	var keyOrder []any
	for _, p := range pairs {
		if _, ok := groups[p.Key]; !ok {
			keyOrder = append(keyOrder, p.Key)
		}
		sums[p.Key] += p.Value.(int)
		groups[p.Key] = append(groups[p.Key], p.Value)
	}
	for _, n := range []int{0, 1, 4} {
		got, err = kv.ReduceByKey(add, n).Collect()
		c.pairsEqual(fmt.Sprintf("ReduceByKey into %d", n), got, err, mapPairs(sums))
	}
	got, err = kv.ReduceByKey(func(a, b any) any { return a.(int) + b.(int) }, 3).Collect()
	c.pairsEqual("ReduceByKey untyped", got, err, mapPairs(sums))
	got, err = kv.FoldByKey(0, add, 2).Collect()
	c.pairsEqual("FoldByKey", got, err, mapPairs(sums))
	signs := map[any]any{}
	for k, vs := range groups {
		h := make([]int, 2)
		for _, v := range vs {
			if v.(int) < 0 {
				h[0]++
			} else {
				h[1]++
			}
		}
		signs[k] = h
	}
	got, err = kv.MapValues(func(v int) []int {
		if v < 0 {
			return []int{1, 0}
		}
		return []int{0, 1}
	}).FoldByKey(make([]int, 2), func(h, x []int) []int {
		// A mutable zero: every key needs its own copy.
		h[0] += x[0]
		h[1] += x[1]
		return h
	}, 3).Collect()
	c.pairsEqual("FoldByKey mutable zero", got, err, mapPairsAny(signs))
	stats := map[any]any{}
	for k, vs := range groups {
		s := 0
		for _, v := range vs {
			s += v.(int)
		}
		stats[k] = [2]int{s, len(vs)}
	}
	got, err = kv.AggregateByKey(func() []int { return make([]int, 2) }, func(h []int, v int) []int {
		if v < 0 {
			h[0]++
		} else {
			h[1]++
		}
		return h
	}, func(a, b []int) []int { return []int{a[0] + b[0], a[1] + b[1]} }, 4).Collect()
	c.pairsEqual("AggregateByKey zero factory", got, err, mapPairsAny(signs))
	got, err = kv.AggregateByKey([2]int{}, func(a [2]int, v int) [2]int { return [2]int{a[0] + v, a[1] + 1} },
		func(a, b [2]int) [2]int { return [2]int{a[0] + b[0], a[1] + b[1]} }).Collect()
	c.pairsEqual("AggregateByKey", got, err, mapPairsAny(stats))
	got, err = kv.CombineByKey(func(v int) []int { return []int{v} },
		func(c []int, v int) []int { return append(c, v) },
		func(a, b []int) []int { return append(a, b...) }, 4).Collect()
	lists := map[any]any{}
	for k, vs := range groups {
		l := make([]int, len(vs))
		for i, v := range vs {
			l[i] = v.(int)
		}
		lists[k] = l
	}
	c.pairsEqual("CombineByKey", got, err, mapPairsAny(lists))
	got, err = kv.GroupByKey(4).Collect()
	g := map[any]any{}
	for k, vs := range groups {
		g[k] = vs
	}
	c.pairsEqual("GroupByKey", got, err, mapPairsAny(g))
	got, err = sc.Parallelize(lines, 3).FlatMap(strings.Fields).GroupBy(func(w string) int { return len(w) }).MapValues(func(ws []any) int { return len(ws) }).Collect()
	c.pairsEqual("GroupBy", got, err, []any{rdd.Pair{Key: 6, Value: total(wc)}})
	cbk, err := kv.CountByKey()
	ck := map[any]int{}
	for k, vs := range groups {
		ck[k] = len(vs)
	}
	c.mapsEqual("CountByKey", cbk, err, ck)
	cbv, err := sc.Parallelize(lines, 3).FlatMap(strings.Fields).CountByValue()
	c.mapsEqual("CountByValue", cbv, err, wc)

	// Element-wise operations on pairs.
	got, err = kv.MapValues(func(v int) int { return v * v }).Collect()
	want = nil
	for _, p := range pairs {
		want = append(want, rdd.Pair{Key: p.Key, Value: p.Value.(int) * p.Value.(int)})
	}
	c.ordered("MapValues", got, err, want)
	got, err = kv.FlatMapValues(func(v int) []int {
		if v < 0 {
			return nil
		}
		return []int{v, -v}
	}).Collect()
	want = nil
	for _, p := range pairs {
		if v := p.Value.(int); v >= 0 {
			want = append(want, rdd.Pair{Key: p.Key, Value: v}, rdd.Pair{Key: p.Key, Value: -v})
		}
	}
	c.ordered("FlatMapValues", got, err, want)
	got, err = kv.Keys().Collect()
	want = nil
	for _, p := range pairs {
		want = append(want, p.Key)
	}
	c.ordered("Keys", got, err, want)
	got, err = kv.Values().Collect()
	want = nil
	for _, p := range pairs {
		want = append(want, p.Value)
	}
	c.ordered("Values", got, err, want)

	// Joins.
	ogroups := map[any][]any{}
	for _, p := range others {
		ogroups[p.Key] = append(ogroups[p.Key], p.Value)
	}
	join := func(left, right bool) []any {
		var out []any
		for k, vs := range groups {
			ws := ogroups[k]
			if len(ws) == 0 && left {
				ws = []any{nil}
			}
			for _, v := range vs {
				for _, w := range ws {
					out = append(out, rdd.Pair{Key: k, Value: rdd.Pair{Key: v, Value: w}})
				}
			}
		}
		if right {
			for k, ws := range ogroups {
				if len(groups[k]) == 0 {
					for _, w := range ws {
						out = append(out, rdd.Pair{Key: k, Value: rdd.Pair{Key: nil, Value: w}})
					}
				}
			}
		}
		return out
	}
	got, err = kv.Join(ov).Collect()
	c.pairsEqual("Join", got, err, join(false, false))
	got, err = kv.LeftOuterJoin(ov, 2).Collect()
	c.pairsEqual("LeftOuterJoin", got, err, join(true, false))
	got, err = kv.RightOuterJoin(ov, 7).Collect()
	c.pairsEqual("RightOuterJoin", got, err, join(false, true))
	got, err = kv.FullOuterJoin(ov).Collect()
	c.pairsEqual("FullOuterJoin", got, err, join(true, true))
	got, err = kv.Cogroup(ov, 3).Collect()
	var cg []any
	for k := range union(groups, ogroups) {
		vs, ws := groups[k], ogroups[k]
		if vs == nil {
			vs = []any{}
		}
		if ws == nil {
			ws = []any{}
		}
		cg = append(cg, rdd.Pair{Key: k, Value: rdd.Pair{Key: vs, Value: ws}})
	}
	c.pairsEqual("Cogroup", got, err, cg)
	got, err = kv.SubtractByKey(ov).Collect()
	want = nil
	for _, p := range pairs {
		if len(ogroups[p.Key]) == 0 {
			want = append(want, p)
		}
	}
	c.pairsEqual("SubtractByKey", got, err, want)
	// Co-partitioned inputs join without a shuffle of either side.
	left := kv.ReduceByKey(add, 4)
	right := ov.MapValues(func(s string) int { return len(s) }).ReduceByKey(add, 4)
	got, err = left.Join(right).Collect()
	osum := map[any]int{}
	for _, p := range others {
		osum[p.Key] += len(p.Value.(string))
	}
	want = nil
	for k, s := range sums {
		if o, ok := osum[k]; ok {
			want = append(want, rdd.Pair{Key: k, Value: rdd.Pair{Key: s, Value: o}})
		}
	}
	c.pairsEqual("Join co-partitioned", got, err, want)
	c.check("Join co-partitioned keeps partitioner", left.Join(right).Partitioner() == left.Partitioner(), "")

	// Distinct, sorting, partitioning, lookup.
	got, err = kv.Keys().Distinct(3).Collect()
	c.pairsEqual("Distinct", got, err, keyOrder)
	for _, asc := range []bool{true, false} {
		got, err = kv.SortByKey(asc, 4).Collect()
		want = make([]any, len(pairs))
		for i, p := range pairs {
			want[i] = p
		}
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i].(rdd.Pair).Key.(int), want[j].(rdd.Pair).Key.(int)
			if asc {
				return a < b
			}
			return a > b
		})
		c.ordered(fmt.Sprintf("SortByKey ascending=%v", asc), got, err, want)
	}
	got, err = sc.Parallelize(floats, 5).SortBy(func(x float64) float64 { return -x }, true, 3).Collect()
	sorted := slices.Clone(floats)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	c.ordered("SortBy", got, err, boxFloats(sorted))
	byWord, err := sc.Parallelize(lines, 4).FlatMap(strings.Fields).Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
		ReduceByKey(add).SortBy(func(p rdd.Pair) rdd.Pair { return rdd.Pair{Key: -p.Value.(int), Value: p.Key} }, true).Take(3)
	var top []any
	for _, p := range mapPairs(wc) {
		top = append(top, p)
	}
	sort.Slice(top, func(i, j int) bool {
		a, b := top[i].(rdd.Pair), top[j].(rdd.Pair)
		if a.Value != b.Value {
			return a.Value.(int) > b.Value.(int)
		}
		return a.Key.(string) < b.Key.(string)
	})
	c.ordered("SortBy pair key + Take", byWord, err, top[:3])
	hp := rdd.HashPartitioner{N: 4}
	parted := kv.PartitionBy(hp)
	got, err = parted.MapPartitionsWithIndex(func(p int, ps []rdd.Pair) []string {
		bad := 0
		for _, kv := range ps {
			if kv.Key.(int)%4 != p {
				bad++
			}
		}
		return []string{fmt.Sprintf("%d:%d:%d", p, len(ps), bad)}
	}).Collect()
	per := make([]int, 4)
	for _, p := range pairs {
		per[p.Key.(int)%4]++
	}
	c.ordered("PartitionBy hash", got, err, []any{fmt.Sprintf("0:%d:0", per[0]), fmt.Sprintf("1:%d:0", per[1]), fmt.Sprintf("2:%d:0", per[2]), fmt.Sprintf("3:%d:0", per[3])})
	c.check("PartitionBy same partitioner", parted.PartitionBy(hp) == parted, "")
	rp, err := rdd.NewRangePartitioner(3, kv, true)
	if err != nil {
		c.fail("RangePartitioner", err.Error())
	} else {
		got, err = kv.PartitionBy(rp).MapPartitionsWithIndex(func(p int, ps []rdd.Pair) []any {
			lo, hi := 1<<30, -1
			for _, kv := range ps {
				lo, hi = min(lo, kv.Key.(int)), max(hi, kv.Key.(int))
			}
			return []any{rdd.Pair{Key: lo, Value: hi}}
		}).Collect()
		ok := err == nil && len(got) == rp.NumPartitions()
		for i := 1; ok && i < len(got); i++ {
			ok = got[i-1].(rdd.Pair).Value.(int) < got[i].(rdd.Pair).Key.(int)
		}
		c.check("PartitionBy range", ok, fmt.Sprint(got, err, rp.Bounds))
	}
	for _, k := range []int{7, 59, 1000} {
		vs, err := parted.Lookup(k)
		c.ordered(fmt.Sprintf("Lookup %d partitioned", k), vs, err, nonNil(groups[k]))
		vs, err = kv.Lookup(k)
		c.ordered(fmt.Sprintf("Lookup %d", k), vs, err, nonNil(groups[k]))
	}
	got, err = kv.Repartition(7).Collect()
	c.pairsEqual("Repartition", got, err, anys(pairs))
	// Partitions of shuffled RDDs read on workers other than their own.
	got, err = kv.ReduceByKey(add, 4).Coalesce(1).Collect()
	c.pairsEqual("Coalesce after a shuffle", got, err, mapPairs(sums))
	got, err = kv.ReduceByKey(add, 2).Union(kv.Keys().Distinct(2).Map(func(k int) rdd.Pair { return rdd.Pair{Key: k, Value: 0} })).ReduceByKey(add).Collect()
	c.pairsEqual("Union of shuffles, shuffled again", got, err, mapPairs(sums))

	// Aggregation with a mutable zero, and Take, Top, TakeOrdered.
	s, err := data.NewSamples(600, 1, 1, 1, false)
	if err == nil {
		hist := make([]int, 10)
		for i := range s.Labels {
			s.Labels[i] = float32(rng.IntN(10))
			hist[int(s.Labels[i])]++
		}
		h, err := sc.ParallelizeSamples(s, 6).Aggregate(make([]int, 10),
			func(h []int, x data.Sample) []int { h[int(x.Label)]++; return h },
			func(a, b []int) []int {
				for i := range a {
					a[i] += b[i]
				}
				return a
			})
		c.equal("Aggregate label histogram", h, err, hist)
		f, err := sc.ParallelizeSamples(s, 4).Map(func(x data.Sample) []int {
			h := make([]int, 10)
			h[int(x.Label)] = 1
			return h
		}).Fold(make([]int, 10), func(a, b []int) []int {
			for i := range a {
				a[i] += b[i]
			}
			return a
		})
		c.equal("Fold mutable zero", f, err, hist)
	}
	first, err := kv.Map(func(p rdd.Pair) int { return p.Value.(int) }).Filter(func(v int) bool { return v > 400 }).Take(3)
	want = nil
	for _, p := range pairs {
		if v := p.Value.(int); v > 400 && len(want) < 3 {
			want = append(want, v)
		}
	}
	c.ordered("Take", first, err, want)
	vals := make([]int, len(pairs))
	for i, p := range pairs {
		vals[i] = p.Value.(int)
	}
	sortedVals := slices.Sorted(slices.Values(vals))
	tops, err := kv.Values().Top(5)
	c.ordered("Top", tops, err, boxInts(reversed(sortedVals)[:5]))
	low, err := kv.Values().TakeOrdered(4)
	c.ordered("TakeOrdered", low, err, boxInts(sortedVals[:4]))
	byAbs, err := kv.Values().TakeOrdered(3, func(v int) int { return max(v, -v) })
	absVals := slices.Clone(vals)
	sort.SliceStable(absVals, func(i, j int) bool { return max(absVals[i], -absVals[i]) < max(absVals[j], -absVals[j]) })
	c.ordered("TakeOrdered by key", byAbs, err, boxInts(absVals[:3]))
	return c.b.String()
}

// checker writes one line per check.
type checker struct{ b strings.Builder }

func (c *checker) ok(name string, v any) {
	h := fnv.New64a()
	fmt.Fprint(h, v)
	fmt.Fprintf(&c.b, "%s ok %x\n", name, h.Sum64())
}

func (c *checker) fail(name, why string) {
	if len(why) > 400 {
		why = why[:400] + "..."
	}
	fmt.Fprintf(&c.b, "%s MISMATCH %s\n", name, why)
}

func (c *checker) check(name string, ok bool, why string) {
	if ok {
		c.ok(name, true)
	} else {
		c.fail(name, why)
	}
}

// ordered checks got against want, in order.
func (c *checker) ordered(name string, got []any, err error, want []any) {
	switch {
	case err != nil:
		c.fail(name, err.Error())
	case len(got) != len(want) || fmt.Sprint(got) != fmt.Sprint(want):
		c.fail(name, fmt.Sprintf("got %d elements %v, want %d %v", len(got), got, len(want), want))
	default:
		c.ok(name, got)
	}
}

// pairsEqual checks got against want as multisets.
func (c *checker) pairsEqual(name string, got []any, err error, want []any) {
	if err != nil {
		c.fail(name, err.Error())
		return
	}
	g, w := canon(got), canon(want)
	if !slices.Equal(g, w) {
		c.fail(name, fmt.Sprintf("got %d elements %v, want %d %v", len(g), g, len(w), w))
		return
	}
	c.ok(name, got)
}

func (c *checker) mapsEqual(name string, got map[any]int, err error, want map[any]int) {
	switch {
	case err != nil:
		c.fail(name, err.Error())
	case !reflect.DeepEqual(got, want):
		c.fail(name, fmt.Sprintf("got %v, want %v", got, want))
	default:
		c.ok(name, canon(mapPairs(got)))
	}
}

func (c *checker) equal(name string, got any, err error, want any) {
	switch {
	case err != nil:
		c.fail(name, err.Error())
	case !reflect.DeepEqual(got, want):
		c.fail(name, fmt.Sprintf("got %v, want %v", got, want))
	default:
		c.ok(name, got)
	}
}

func (c *checker) near(name string, got any, err error, want float64) {
	f, ok := got.(float64)
	switch {
	case err != nil:
		c.fail(name, err.Error())
	case !ok || f-want > 1e-9 || want-f > 1e-9:
		c.fail(name, fmt.Sprintf("got %v, want %v", got, want))
	default:
		c.ok(name, fmt.Sprintf("%.9f", f))
	}
}

// canon formats elements and sorts them.
func canon(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	sort.Strings(out)
	return out
}

func mapPairs(m map[any]int) []any {
	var out []any
	for k, v := range m {
		out = append(out, rdd.Pair{Key: k, Value: v})
	}
	return out
}

func mapPairsAny(m map[any]any) []any {
	var out []any
	for k, v := range m {
		out = append(out, rdd.Pair{Key: k, Value: v})
	}
	return out
}

func union(a, b map[any][]any) map[any]bool {
	out := map[any]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func total(m map[any]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sumFloats(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func boxFloats(xs []float64) []any { return anys(xs) }
func boxInts(xs []int) []any       { return anys(xs) }

func nonNil(xs []any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}

func reversed(xs []int) []int {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// SaveAndRead writes an RDD of samples and one of pairs as folders of
// Parquet and text part files under dir (which every rank sees), reads
// them back, and describes what it found. Every rank of an SPMD job
// calls it at once, with the same dir.
func SaveAndRead(sc *rdd.Context, dir string) string {
	c := &checker{}
	s, err := data.NewSamples(40, 1, 2, 2, false)
	if err != nil {
		return err.Error()
	}
	for i := range s.Pixels {
		s.Pixels[i] = byte(i * 3)
	}
	for i := range s.Labels {
		s.Labels[i] = float32(i % 5)
	}
	err = sc.ParallelizeSamples(s, 5).SaveAsParquet(dir + "/samples")
	c.check("SaveAsParquet samples", err == nil, fmt.Sprint(err))
	back, err := sc.Read("parquet:"+dir+"/samples", 3)
	if err == nil {
		var got *data.Samples
		got, err = back.CollectSamples()
		c.check("Read parquet samples", err == nil && reflect.DeepEqual(got.Pixels, s.Pixels) && reflect.DeepEqual(got.Labels, s.Labels), fmt.Sprint(got, err))
	} else {
		c.fail("Read parquet samples", err.Error())
	}
	words := sc.Parallelize([]string{"b a", "c a", "a"}, 2).FlatMap(strings.Fields).
		Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
		ReduceByKey(func(a, b int) int { return a + b }, 3)
	err = words.SaveAsTextFile(dir + "/words")
	c.check("SaveAsTextFile", err == nil, fmt.Sprint(err))
	lines, err := sc.Read("text:"+dir+"/words", 2)
	if err == nil {
		got, err := lines.Collect()
		c.pairsEqual("Read text", got, err, []any{"(a, 3)", "(b, 1)", "(c, 1)"})
	} else {
		c.fail("Read text", err.Error())
	}
	err = words.SaveAsParquet(dir + "/words-parquet")
	c.check("SaveAsParquet pairs", err == nil, fmt.Sprint(err))
	rows, err := sc.Read(dir+"/words-parquet", 2)
	if err == nil {
		got, err := rows.Map(func(m map[string]any) string { return fmt.Sprintf("%v=%v", m["key"], m["value"]) }).Collect()
		c.pairsEqual("Read parquet rows", got, err, []any{"a=3", "b=1", "c=1"})
	} else {
		c.fail("Read parquet rows", err.Error())
	}
	err = words.SaveAsTextFile(dir + "/words")
	c.check("SaveAsTextFile over existing output fails", err != nil && strings.Contains(err.Error(), "already exists"), fmt.Sprint(err))
	return c.b.String()
}
