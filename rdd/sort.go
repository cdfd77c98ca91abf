package rdd

import (
	"fmt"
	"sort"
)

// SortByKey sorts an RDD of pairs by key, ascending or descending, into
// numPartitions partitions (by default as many as it has): a
// RangePartitioner, made by sampling the keys (a job, run now, as in
// Spark), sends each key range to one partition, and each partition is
// sorted, so Collect returns the pairs in order. Pairs with equal keys
// keep their input order. Keys must be of one ordered type: numbers,
// strings, bools, or arrays, structs and Pairs of those.
func (r *RDD) SortByKey(ascending bool, numPartitions ...int) *RDD {
	n := r.nparts
	switch {
	case len(numPartitions) > 1:
		return r.sc.failed("SortByKey", fmt.Errorf("rdd: SortByKey takes at most one partition count, got %v", numPartitions), r)
	case len(numPartitions) == 1 && numPartitions[0] < 0:
		return r.sc.failed("SortByKey", fmt.Errorf("rdd: SortByKey into %d partitions: want at least 1, or 0 for the default", numPartitions[0]), r)
	case len(numPartitions) == 1 && numPartitions[0] > 0:
		n = numPartitions[0]
	}
	if err := r.Err(); err != nil {
		return r.sc.failed("SortByKey", err, r)
	}
	rp, err := NewRangePartitioner(max(n, 1), r, ascending)
	if err != nil {
		return r.sc.failed("SortByKey", err, r)
	}
	return r.sortWithin("SortByKey", rp, ascending)
}

// sortWithin places the pairs by rp and sorts every partition by key.
func (r *RDD) sortWithin(op string, rp *RangePartitioner, ascending bool) *RDD {
	d := r.sc.newShuffleDep(r, rp.NumPartitions(), func(_ *TaskContext, m int, in block) ([]block, error) {
		return bucketPairs(op, m, in.elements(), rp)
	})
	out := r.sc.newShuffled(op, rp.NumPartitions(), false, []*shuffleDep{d}, nil, func(_ *TaskContext, q int, in [][]block) (block, error) {
		var elems []any
		for _, b := range in[0] {
			elems = append(elems, b.Elems...)
		}
		keys := make([]any, len(elems))
		err := each(op, q, len(elems), func(i int) { keys[i] = pairOf(op, elems[i]).Key })
		if err != nil {
			return block{}, err
		}
		idx := allPartitions(len(elems))
		err = call(op, q, func() {
			sort.SliceStable(idx, func(i, j int) bool {
				c := compareKeys(op, keys[idx[i]], keys[idx[j]])
				if ascending {
					return c < 0
				}
				return c > 0
			})
		})
		if err != nil {
			return block{}, err
		}
		sorted := make([]any, len(elems))
		for i, k := range idx {
			sorted[i] = elems[k]
		}
		return block{Elems: sorted}, nil
	})
	out.partitioner = rp
	return out
}

// SortBy sorts the elements by f(x), such as func(w rdd.Pair) int {
// return -w.Value.(int) }, ascending or descending, as
// KeyBy(f).SortByKey(ascending, numPartitions...).Values().
func (r *RDD) SortBy(f any, ascending bool, numPartitions ...int) *RDD {
	return r.KeyBy(f).SortByKey(ascending, numPartitions...).Values().setOp("SortBy")
}

// TakeOrdered returns the n smallest elements, in ascending order, as
// Spark's takeOrdered; with key (a function such as func(p rdd.Pair) int)
// it orders by key(x). Every partition keeps only its n smallest as it
// scans, so memory stays small. Ties keep the input order.
func (r *RDD) TakeOrdered(n int, key ...any) ([]any, error) {
	return r.ordered("TakeOrdered", n, false, key)
}

// Top returns the n largest elements, in descending order, as Spark's
// top; with key it orders by key(x). Ties keep the input order.
func (r *RDD) Top(n int, key ...any) ([]any, error) {
	return r.ordered("Top", n, true, key)
}

// ranked is an element with its sort key and its place in the input.
type ranked struct {
	Key  any
	Elem any
	Part int
	Pos  int
}

func (r *RDD) ordered(op string, n int, largest bool, key []any) ([]any, error) {
	if len(key) > 1 {
		return nil, fmt.Errorf("rdd: %s takes at most one key function, got %d", op, len(key))
	}
	kf := func(x any) any { return x }
	if len(key) == 1 {
		var err error
		if kf, err = unary(op, key[0]); err != nil {
			return nil, fmt.Errorf("rdd: %w", err)
		}
	}
	if n <= 0 {
		return []any{}, r.Err()
	}
	// before reports whether a belongs before b in the result.
	before := func(a, b ranked) bool {
		c := compareKeys(op, a.Key, b.Key)
		if largest {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
		if a.Part != b.Part {
			return a.Part < b.Part
		}
		return a.Pos < b.Pos
	}
	res, err := r.run(op, allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		p := tc.info.Partition
		var h []ranked // a heap whose root is the worst element kept
		worse := func(i, j int) bool { return before(h[j], h[i]) }
		err := each(op, p, b.Len(), func(i int) {
			x := b.at(i)
			e := ranked{Key: kf(x), Elem: x, Part: p, Pos: i}
			switch {
			case len(h) < n:
				h = append(h, e)
				for c := len(h) - 1; c > 0; {
					up := (c - 1) / 2
					if !worse(c, up) {
						break
					}
					h[c], h[up] = h[up], h[c]
					c = up
				}
			case before(e, h[0]):
				h[0] = e
				for c := 0; ; {
					w, l, rr := c, 2*c+1, 2*c+2
					if l < len(h) && worse(l, w) {
						w = l
					}
					if rr < len(h) && worse(rr, w) {
						w = rr
					}
					if w == c {
						break
					}
					h[c], h[w] = h[w], h[c]
					c = w
				}
			}
		})
		return h, err
	})
	if err != nil {
		return nil, err
	}
	var all []ranked
	for _, v := range res {
		all = append(all, v.([]ranked)...)
	}
	err = call(op, -1, func() { sort.Slice(all, func(i, j int) bool { return before(all[i], all[j]) }) })
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, min(n, len(all)))
	for _, e := range all[:min(n, len(all))] {
		out = append(out, e.Elem)
	}
	return out, nil
}
