package rdd

import (
	"fmt"
)

// CollectAsMap returns the pairs of an RDD of pairs as a map from key to
// value; where a key appears more than once, the last pair (in partition
// order) wins.
func (r *RDD) CollectAsMap() (map[any]any, error) {
	elems, err := r.Collect()
	if err != nil {
		return nil, err
	}
	out := make(map[any]any, len(elems))
	err = keyedEach("CollectAsMap", -1, func(at func(int)) {
		for i, x := range elems {
			at(i)
			kv := pairOf("CollectAsMap", x)
			out[kv.Key] = kv.Value
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CountByKey returns how many pairs each key has.
func (r *RDD) CountByKey() (map[any]int, error) {
	return r.mapElems("CountByKey", func(x any) any {
		return Pair{Key: pairOf("CountByKey", x).Key, Value: 1}
	}).countPairs("CountByKey")
}

// CountByValue returns how many times each distinct element occurs.
func (r *RDD) CountByValue() (map[any]int, error) {
	return r.mapElems("CountByValue", func(x any) any { return Pair{Key: x, Value: 1} }).countPairs("CountByValue")
}

// countPairs sums the int values of each key and collects the sums.
func (r *RDD) countPairs(op string) (map[any]int, error) {
	m, err := r.ReduceByKey(func(a, b int) int { return a + b }).setOp(op).CollectAsMap()
	if err != nil {
		return nil, err
	}
	out := make(map[any]int, len(m))
	for k, v := range m {
		out[k] = v.(int)
	}
	return out, nil
}

// Lookup returns the values of key in an RDD of pairs, in order. With a
// partitioner (after ReduceByKey, PartitionBy, ...) it reads only the
// partition that holds key; else it scans every partition.
func (r *RDD) Lookup(key any) ([]any, error) {
	parts := allPartitions(r.nparts)
	if r.partitioner != nil {
		var q int
		if err := call("Lookup", -1, func() { q = r.partitioner.Partition(key) }); err != nil {
			return nil, err
		}
		if q < 0 || q >= r.nparts {
			return nil, fmt.Errorf("rdd: Lookup: the partitioner %v put key %v in partition %d of %d", r.partitioner, key, q, r.nparts)
		}
		parts = []int{q}
	}
	res, err := r.run("Lookup", parts, func(tc *TaskContext, b block) (any, error) {
		var vals []any
		err := each("Lookup", tc.info.Partition, b.Len(), func(i int) {
			kv := pairOf("Lookup", b.at(i))
			if equalKeys(kv.Key, key) {
				vals = append(vals, kv.Value)
			}
		})
		return vals, err
	})
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, v := range res {
		if v != nil {
			out = append(out, v.([]any)...)
		}
	}
	return out, nil
}

// equalKeys is a == b, false for values that cannot be compared.
func equalKeys(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
