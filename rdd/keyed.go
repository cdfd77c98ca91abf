package rdd

import (
	"fmt"
	"runtime"
	"strings"
)

// Pair is a key and a value: the element of RDDs of pairs, on which the
// key-value operations (ReduceByKey, GroupByKey, Join, SortByKey, ...)
// work, as Spark's work on tuples. Zip makes pairs too. Keys must be
// comparable (numbers, strings, bools, and arrays, structs and Pairs of
// those): they are compared with ==, and hashed by value to choose their
// partition.
//
// Where an operation pairs two values, such as Join's (v, w), the value
// is itself a Pair: Pair{Key: k, Value: Pair{Key: v, Value: w}}.
type Pair struct {
	Key   any
	Value any
}

// String writes the pair as a tuple: (key, value).
func (p Pair) String() string { return fmt.Sprintf("(%v, %v)", p.Key, p.Value) }

// pairOf returns x as a Pair, or panics with a *typeError for op.
func pairOf(op string, x any) Pair {
	switch p := x.(type) {
	case Pair:
		return p
	case *Pair:
		if p != nil {
			return *p
		}
	}
	panic(&typeError{op: op, arg: -1, note: "needs an RDD of rdd.Pair elements (make them with Map or KeyBy)", value: x})
}

// keyedAgg combines values by key, keeping the keys in the order they
// first came, so that results are the same on every run and every engine.
type keyedAgg struct {
	index map[any]int
	keys  []any
	vals  []any
}

func newKeyedAgg() *keyedAgg { return &keyedAgg{index: map[any]int{}} }

// add folds value v of key k in: create makes the combined value of a
// new key, merge adds to an existing one.
func (a *keyedAgg) add(k, v any, create func(any) any, merge func(c, v any) any) {
	if i, ok := a.index[k]; ok {
		a.vals[i] = merge(a.vals[i], v)
		return
	}
	a.index[k] = len(a.keys)
	a.keys = append(a.keys, k)
	a.vals = append(a.vals, create(v))
}

// pairs returns the combined values as pairs, in key order of arrival.
func (a *keyedAgg) pairs() []any {
	out := make([]any, len(a.keys))
	for i, k := range a.keys {
		out[i] = Pair{Key: k, Value: a.vals[i]}
	}
	return out
}

// aggregator says how to combine the values of a key: create makes a
// combined value from a key's first value, merge adds a value to it and
// combine joins two combined values (of different map partitions). fast,
// when set, makes a compiled aggregation for a key like the given one
// (nil when there is none for its type).
type aggregator struct {
	create  func(v any) any
	merge   func(c, v any) any
	combine func(a, b any) any
	fast    func(key any) fastAgg
}

// fastAgg aggregates pairs of one key type and one value type without
// boxing the running values.
type fastAgg interface {
	// add folds the pairs of elems in, up to the first element that does
	// not fit the types, and returns how many it took.
	add(elems []any) int
	// pairs returns the aggregated pairs, in key order of arrival.
	pairs() []any
	// generic moves what it holds into a keyedAgg.
	generic() *keyedAgg
}

// aggregateValues folds the pairs of blocks (first values, with create
// and merge) or combined values (with combine), in order, into pairs.
func (ag *aggregator) aggregate(op string, p int, blocks []block, combined bool) ([]any, error) {
	create, merge := ag.create, ag.merge
	if combined {
		create, merge = func(c any) any { return c }, ag.combine
	}
	var fa fastAgg
	if ag.fast != nil {
		for _, b := range blocks {
			if b.Len() > 0 {
				if k, ok := b.at(0).(Pair); ok {
					fa = ag.fast(k.Key)
				}
				break
			}
		}
	}
	var ka *keyedAgg
	pos := 0 // element index within p, for errors
	err := keyedEach(op, p, func(at func(i int)) {
		for _, b := range blocks {
			start := 0
			if fa != nil && b.Samples == nil {
				start = fa.add(b.Elems)
				pos += start
				if start == len(b.Elems) {
					continue
				}
				ka, fa = fa.generic(), nil
			}
			if ka == nil {
				ka = newKeyedAgg()
			}
			for i := start; i < b.Len(); i++ {
				at(pos)
				kv := pairOf(op, b.at(i))
				ka.add(kv.Key, kv.Value, create, merge)
				pos++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	switch {
	case fa != nil:
		return fa.pairs(), nil
	case ka != nil:
		return ka.pairs(), nil
	}
	return []any{}, nil
}

// keyedEach runs body, which calls at(i) before working on element i,
// turning panics into errors as each does, and a key that cannot be a map
// key into an error that says so.
func keyedEach(op string, p int, body func(at func(i int))) (err error) {
	i := 0
	defer func() {
		if v := recover(); v != nil {
			if re, ok := v.(runtime.Error); ok && strings.Contains(re.Error(), "unhashable") {
				v = &typeError{op: op, arg: -1, note: "keys must be comparable, as map keys are (numbers, strings, bools, arrays, structs and rdd.Pairs of those): " + re.Error(), noValue: true}
			}
			err = recovered(op, p, i, v)
		}
	}()
	body(func(k int) { i = k })
	return nil
}

// bucketPairs splits pairs into n buckets by their keys' partitions.
func bucketPairs(op string, p int, elems []any, part Partitioner) ([]block, error) {
	n := part.NumPartitions()
	idx := make([][]any, n)
	err := each(op, p, len(elems), func(i int) {
		kv := pairOf(op, elems[i])
		q := part.Partition(kv.Key)
		if q < 0 || q >= n {
			panic(fmt.Sprintf("the partitioner %v put key %v in partition %d of %d", part, kv.Key, q, n))
		}
		idx[q] = append(idx[q], elems[i])
	})
	if err != nil {
		return nil, err
	}
	out := make([]block, n)
	for q := range out {
		out[q] = block{Elems: idx[q]}
		if out[q].Elems == nil {
			out[q].Elems = []any{}
		}
	}
	return out, nil
}

// samePartitioner reports whether a and b place every key alike: both
// non-nil and equal.
func samePartitioner(a, b Partitioner) (same bool) {
	if a == nil || b == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// checkPartitioner checks a partitioner given by the user.
func checkPartitioner(op string, p Partitioner) error {
	if p == nil {
		return fmt.Errorf("rdd: %s needs a partitioner, got nil", op)
	}
	if n := p.NumPartitions(); n < 1 {
		return fmt.Errorf("rdd: %s: the partitioner %v has %d partitions; need at least 1", op, p, n)
	}
	return nil
}

// partitionerFor is the partitioner of a key-value operation on r (and
// others): HashPartitioner{n} when numPartitions gives n, else the
// partitioner of the input with the most partitions that has one, else
// HashPartitioner over the largest partition count of the inputs, as
// Spark's defaultPartitioner.
func (r *RDD) partitionerFor(op string, numPartitions []int, others ...*RDD) (Partitioner, error) {
	switch {
	case len(numPartitions) > 1:
		return nil, fmt.Errorf("rdd: %s takes at most one partition count, got %v", op, numPartitions)
	case len(numPartitions) == 1 && numPartitions[0] < 0:
		return nil, fmt.Errorf("rdd: %s into %d partitions: want at least 1, or 0 for the default", op, numPartitions[0])
	case len(numPartitions) == 1 && numPartitions[0] > 0:
		return HashPartitioner{N: numPartitions[0]}, nil
	}
	all := append([]*RDD{r}, others...)
	var best Partitioner
	most := 0
	for _, x := range all {
		most = max(most, x.nparts)
		if x.partitioner != nil && (best == nil || x.partitioner.NumPartitions() > best.NumPartitions()) {
			best = x.partitioner
		}
	}
	if best != nil {
		return best, nil
	}
	return HashPartitioner{N: max(most, 1)}, nil
}

// combineByKey is the shuffle behind ReduceByKey, FoldByKey,
// AggregateByKey, CombineByKey and GroupByKey: map tasks combine the
// values of each key in their partition first (unless mapSide is false),
// then every key's combined values meet in the partition part gives it.
// An RDD already partitioned by part is combined without a shuffle.
func (r *RDD) combineByKey(op string, ag *aggregator, part Partitioner, mapSide bool) *RDD {
	if err := checkPartitioner(op, part); err != nil {
		return r.sc.failed(op, err, r)
	}
	if samePartitioner(r.partitioner, part) {
		out := r.narrow(op, false, func(_ *TaskContext, p int, in block) (block, error) {
			pairs, err := ag.aggregate(op, p, []block{in}, false)
			return block{Elems: pairs}, err
		})
		out.partitioner = part
		return out
	}
	d := r.sc.newShuffleDep(r, part.NumPartitions(), func(_ *TaskContext, p int, in block) ([]block, error) {
		elems := in.elements()
		if mapSide {
			var err error
			if elems, err = ag.aggregate(op, p, []block{in}, false); err != nil {
				return nil, err
			}
		}
		return bucketPairs(op, p, elems, part)
	})
	out := r.sc.newShuffled(op, part.NumPartitions(), false, []*shuffleDep{d}, nil, func(_ *TaskContext, q int, in [][]block) (block, error) {
		pairs, err := ag.aggregate(op, q, in[0], mapSide)
		return block{Elems: pairs}, err
	})
	out.partitioner = part
	return out
}

// ReduceByKey merges the values of each key with f, such as func(a, b
// int) int, which must be associative: within each partition first (so
// only one value per key and partition crosses the shuffle), then across
// partitions. The result has one Pair{key, reduced value} per key, in
// numPartitions partitions (by default those of the input's partitioner,
// else as many as the input has; see HashPartitioner). A word count:
//
//	counts := lines.FlatMap(strings.Fields).
//		Map(func(w string) rdd.Pair { return rdd.Pair{Key: w, Value: 1} }).
//		ReduceByKey(func(a, b int) int { return a + b })
func (r *RDD) ReduceByKey(f any, numPartitions ...int) *RDD {
	g, err := binop("ReduceByKey", f)
	if err != nil {
		return r.badFunc("ReduceByKey", err)
	}
	part, err := r.partitionerFor("ReduceByKey", numPartitions)
	if err != nil {
		return r.sc.failed("ReduceByKey", err, r)
	}
	ag := &aggregator{create: func(v any) any { return v }, merge: g, combine: g, fast: fastReducer(f)}
	return r.combineByKey("ReduceByKey", ag, part, true)
}

// FoldByKey is ReduceByKey starting from zero for every key: each key of
// each partition starts from its own copy of zero (or zero is a function
// with no arguments that returns a new zero value), so f may modify its
// first argument and return it.
func (r *RDD) FoldByKey(zero any, f any, numPartitions ...int) *RDD {
	return r.aggregateByKey("FoldByKey", zero, f, f, numPartitions)
}

// AggregateByKey folds the values of each key into a value of another
// type: seqOp, such as func(acc []int, v int) []int, adds a value to an
// accumulator that starts as a copy of zero (for every key of every
// partition; zero may be a function with no arguments that returns a new
// zero value), and combOp joins two accumulators.
func (r *RDD) AggregateByKey(zero any, seqOp, combOp any, numPartitions ...int) *RDD {
	return r.aggregateByKey("AggregateByKey", zero, seqOp, combOp, numPartitions)
}

func (r *RDD) aggregateByKey(op string, zero any, seqOp, combOp any, numPartitions []int) *RDD {
	seq, err := binop(op, seqOp)
	if err != nil {
		return r.badFunc(op, err)
	}
	comb, err := binop(op, combOp)
	if err != nil {
		return r.badFunc(op, err)
	}
	mk, err := zeroMaker(op, zero, acc1Type(seqOp))
	if err != nil {
		return r.badFunc(op, err)
	}
	part, err := r.partitionerFor(op, numPartitions)
	if err != nil {
		return r.sc.failed(op, err, r)
	}
	ag := &aggregator{create: func(v any) any { return seq(mk(), v) }, merge: seq, combine: comb}
	return r.combineByKey(op, ag, part, true)
}

// CombineByKey is the general form of the ByKey aggregations:
// createCombiner makes a combined value from a key's first value (such
// as func(v int) []int), mergeValue adds a value to it and
// mergeCombiners joins two combined values.
func (r *RDD) CombineByKey(createCombiner, mergeValue, mergeCombiners any, numPartitions ...int) *RDD {
	create, err := unary("CombineByKey", createCombiner)
	if err != nil {
		return r.badFunc("CombineByKey", err)
	}
	merge, err := binop("CombineByKey", mergeValue)
	if err != nil {
		return r.badFunc("CombineByKey", err)
	}
	comb, err := binop("CombineByKey", mergeCombiners)
	if err != nil {
		return r.badFunc("CombineByKey", err)
	}
	part, err := r.partitionerFor("CombineByKey", numPartitions)
	if err != nil {
		return r.sc.failed("CombineByKey", err, r)
	}
	return r.combineByKey("CombineByKey", &aggregator{create: create, merge: merge, combine: comb}, part, true)
}

// GroupByKey returns one Pair{key, values} per key, the values a []any
// in the order of the input (by partition, then element). As in Spark,
// it moves every value through the shuffle: to aggregate, ReduceByKey
// and AggregateByKey move less.
func (r *RDD) GroupByKey(numPartitions ...int) *RDD {
	part, err := r.partitionerFor("GroupByKey", numPartitions)
	if err != nil {
		return r.sc.failed("GroupByKey", err, r)
	}
	ag := &aggregator{
		create:  func(v any) any { return []any{v} },
		merge:   func(c, v any) any { return append(c.([]any), v) },
		combine: func(a, b any) any { return append(a.([]any), b.([]any)...) },
	}
	return r.combineByKey("GroupByKey", ag, part, false)
}

// GroupBy returns one Pair{f(x), elements} per distinct f(x), as
// KeyBy(f).GroupByKey().
func (r *RDD) GroupBy(f any, numPartitions ...int) *RDD {
	return r.KeyBy(f).GroupByKey(numPartitions...).setOp("GroupBy")
}

// KeyBy returns the RDD of Pair{f(x), x}.
func (r *RDD) KeyBy(f any) *RDD {
	g, err := unary("KeyBy", f)
	if err != nil {
		return r.badFunc("KeyBy", err)
	}
	return r.mapElems("KeyBy", func(x any) any { return Pair{Key: g(x), Value: x} })
}

// MapValues returns the RDD of Pair{k, f(v)} for every Pair{k, v}; it
// keeps the partitioner.
func (r *RDD) MapValues(f any) *RDD {
	g, err := unary("MapValues", f)
	if err != nil {
		return r.badFunc("MapValues", err)
	}
	out := r.mapElems("MapValues", func(x any) any {
		kv := pairOf("MapValues", x)
		return Pair{Key: kv.Key, Value: g(kv.Value)}
	})
	out.partitioner = r.partitioner
	return out
}

// FlatMapValues returns Pair{k, w} for every w of f(v) (a slice), for
// every Pair{k, v}; it keeps the partitioner.
func (r *RDD) FlatMapValues(f any) *RDD {
	g, err := flat("FlatMapValues", f)
	if err != nil {
		return r.badFunc("FlatMapValues", err)
	}
	out := r.flatMapElems("FlatMapValues", func(x any) []any {
		kv := pairOf("FlatMapValues", x)
		ws := g(kv.Value)
		res := make([]any, len(ws))
		for i, w := range ws {
			res[i] = Pair{Key: kv.Key, Value: w}
		}
		return res
	})
	out.partitioner = r.partitioner
	return out
}

// Keys returns the keys of an RDD of pairs.
func (r *RDD) Keys() *RDD {
	return r.mapElems("Keys", func(x any) any { return pairOf("Keys", x).Key })
}

// Values returns the values of an RDD of pairs.
func (r *RDD) Values() *RDD {
	return r.mapElems("Values", func(x any) any { return pairOf("Values", x).Value })
}

// cogroup groups the values of every key of rdds: partition q holds
// Pair{k, [][]any{values in rdds[0], values in rdds[1], ...}} for the
// keys part puts there, in order of arrival. Inputs already partitioned
// by part are read without a shuffle.
func (r *RDD) cogroup(op string, others []*RDD, part Partitioner) *RDD {
	all := append([]*RDD{r}, others...)
	for _, o := range others {
		if o == nil || o.sc != r.sc {
			return r.sc.failed(op, fmt.Errorf("rdd: %s needs an RDD of the same Context", op), r)
		}
	}
	if err := checkPartitioner(op, part); err != nil {
		return r.sc.failed(op, err, all...)
	}
	// Inputs placed by part already are read directly (narrow); the
	// others are shuffled. newShuffled hands the reduce function the
	// shuffled inputs first, then the narrow ones: order[i] is where
	// input i is.
	var deps []*shuffleDep
	var narrow []*RDD
	placed := func(x *RDD) bool { return samePartitioner(x.partitioner, part) && x.nparts == part.NumPartitions() }
	for _, x := range all {
		if placed(x) {
			narrow = append(narrow, x)
			continue
		}
		deps = append(deps, r.sc.newShuffleDep(x, part.NumPartitions(), func(_ *TaskContext, p int, in block) ([]block, error) {
			return bucketPairs(op, p, in.elements(), part)
		}))
	}
	order := make([]int, len(all))
	for i, di, ni := 0, 0, 0; i < len(all); i++ {
		if placed(all[i]) {
			order[i] = len(deps) + ni
			ni++
		} else {
			order[i] = di
			di++
		}
	}
	reduce := func(_ *TaskContext, q int, in [][]block) (block, error) {
		index := map[any]int{}
		var keys []any
		var groups [][][]any
		pos := 0
		err := keyedEach(op, q, func(at func(int)) {
			for i := range all {
				for _, b := range in[order[i]] {
					for e := 0; e < b.Len(); e++ {
						at(pos)
						pos++
						kv := pairOf(op, b.at(e))
						g, ok := index[kv.Key]
						if !ok {
							g = len(keys)
							index[kv.Key] = g
							keys = append(keys, kv.Key)
							groups = append(groups, make([][]any, len(all)))
						}
						groups[g][i] = append(groups[g][i], kv.Value)
					}
				}
			}
		})
		if err != nil {
			return block{}, err
		}
		out := make([]any, len(keys))
		for g, k := range keys {
			for i := range groups[g] {
				if groups[g][i] == nil {
					groups[g][i] = []any{}
				}
			}
			out[g] = Pair{Key: k, Value: groups[g]}
		}
		return block{Elems: out}, nil
	}
	var out *RDD
	if len(deps) == 0 {
		out = r.sc.newRDD(op, part.NumPartitions(), false, all, func(tc *TaskContext, q int) (block, error) {
			in := make([][]block, len(all))
			for i, x := range all {
				b, err := x.iterator(tc, q)
				if err != nil {
					return block{}, err
				}
				in[i] = []block{b}
			}
			return reduce(tc, q, in)
		})
	} else {
		out = r.sc.newShuffled(op, part.NumPartitions(), false, deps, narrow, reduce)
	}
	out.partitioner = part
	return out
}

// joined is the cogroup of r and other, with f making the output pairs'
// values from each key's two lists of values.
func (r *RDD) joined(op string, other *RDD, numPartitions []int, f func(vs, ws []any) []any) *RDD {
	if other == nil {
		return r.sc.failed(op, fmt.Errorf("rdd: %s with a nil RDD", op), r)
	}
	part, err := r.partitionerFor(op, numPartitions, other)
	if err != nil {
		return r.sc.failed(op, err, r, other)
	}
	g := r.cogroup(op, []*RDD{other}, part)
	out := g.flatMapElems(op, func(x any) []any {
		kv := x.(Pair)
		lists := kv.Value.([][]any)
		vals := f(lists[0], lists[1])
		res := make([]any, len(vals))
		for i, v := range vals {
			res[i] = Pair{Key: kv.Key, Value: v}
		}
		return res
	})
	out.partitioner = part
	return out
}

// Cogroup returns, for every key of r or other, Pair{k, Pair{vs, ws}}
// with vs and ws ([]any) the key's values in r and in other.
func (r *RDD) Cogroup(other *RDD, numPartitions ...int) *RDD {
	return r.joined("Cogroup", other, numPartitions, func(vs, ws []any) []any {
		return []any{Pair{Key: vs, Value: ws}}
	})
}

// Join returns Pair{k, Pair{v, w}} for every Pair{k, v} of r and Pair{k,
// w} of other with the same key.
func (r *RDD) Join(other *RDD, numPartitions ...int) *RDD {
	return r.joined("Join", other, numPartitions, func(vs, ws []any) []any {
		out := make([]any, 0, len(vs)*len(ws))
		for _, v := range vs {
			for _, w := range ws {
				out = append(out, Pair{Key: v, Value: w})
			}
		}
		return out
	})
}

// LeftOuterJoin is Join that also keeps the pairs of r whose key other
// lacks, as Pair{k, Pair{v, nil}}.
func (r *RDD) LeftOuterJoin(other *RDD, numPartitions ...int) *RDD {
	return r.joined("LeftOuterJoin", other, numPartitions, func(vs, ws []any) []any {
		return outerPairs(vs, ws, false, true)
	})
}

// RightOuterJoin is Join that also keeps the pairs of other whose key r
// lacks, as Pair{k, Pair{nil, w}}.
func (r *RDD) RightOuterJoin(other *RDD, numPartitions ...int) *RDD {
	return r.joined("RightOuterJoin", other, numPartitions, func(vs, ws []any) []any {
		return outerPairs(vs, ws, true, false)
	})
}

// FullOuterJoin is Join that keeps the keys of both sides: Pair{k,
// Pair{v, nil}} where other lacks k and Pair{k, Pair{nil, w}} where r
// does.
func (r *RDD) FullOuterJoin(other *RDD, numPartitions ...int) *RDD {
	return r.joined("FullOuterJoin", other, numPartitions, func(vs, ws []any) []any {
		return outerPairs(vs, ws, true, true)
	})
}

// outerPairs pairs every v with every w, filling a missing side with nil
// where allowed.
func outerPairs(vs, ws []any, leftMay, rightMay bool) []any {
	switch {
	case len(vs) == 0 && !leftMay, len(ws) == 0 && !rightMay:
		return nil
	case len(vs) == 0:
		vs = []any{nil}
	case len(ws) == 0:
		ws = []any{nil}
	}
	out := make([]any, 0, len(vs)*len(ws))
	for _, v := range vs {
		for _, w := range ws {
			out = append(out, Pair{Key: v, Value: w})
		}
	}
	return out
}

// SubtractByKey returns the pairs of r whose key other lacks.
func (r *RDD) SubtractByKey(other *RDD, numPartitions ...int) *RDD {
	if len(numPartitions) == 0 {
		numPartitions = []int{r.nparts}
		if r.partitioner != nil {
			numPartitions = nil
		}
	}
	return r.joined("SubtractByKey", other, numPartitions, func(vs, ws []any) []any {
		if len(ws) > 0 {
			return nil
		}
		return vs
	})
}

// Distinct returns the distinct elements (which must be comparable), in
// numPartitions partitions, each in the order of its first appearance.
func (r *RDD) Distinct(numPartitions ...int) *RDD {
	if len(numPartitions) == 0 {
		numPartitions = []int{max(r.nparts, 1)}
	}
	first := func(a, _ any) any { return a }
	return r.mapElems("Distinct", func(x any) any { return Pair{Key: x} }).
		ReduceByKey(first, numPartitions...).Keys().setOp("Distinct")
}

// PartitionBy returns the pairs placed by p: partition i holds the pairs
// whose key p puts in partition i, in the order of the input. An RDD
// already partitioned by p is returned as it is.
func (r *RDD) PartitionBy(p Partitioner) *RDD {
	if err := checkPartitioner("PartitionBy", p); err != nil {
		return r.sc.failed("PartitionBy", err, r)
	}
	if samePartitioner(r.partitioner, p) {
		return r
	}
	d := r.sc.newShuffleDep(r, p.NumPartitions(), func(_ *TaskContext, m int, in block) ([]block, error) {
		return bucketPairs("PartitionBy", m, in.elements(), p)
	})
	out := r.sc.newShuffled("PartitionBy", p.NumPartitions(), false, []*shuffleDep{d}, nil, func(_ *TaskContext, q int, in [][]block) (block, error) {
		return concatBlocks(in[0])
	})
	out.partitioner = p
	return out
}
