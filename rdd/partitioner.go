package rdd

import (
	"fmt"
	"math"
	"sort"
)

// Partitioner decides which partition holds each key of an RDD of pairs.
// PartitionBy shuffles pairs with one; the key-value operations use a
// HashPartitioner unless their input is already partitioned. Two RDDs
// with equal partitioners (==) hold each key in the same partition, so
// joining or grouping them needs no shuffle.
type Partitioner interface {
	// NumPartitions is the number of partitions.
	NumPartitions() int
	// Partition returns the partition of key, in [0, NumPartitions()).
	Partition(key any) int
}

// HashPartitioner sends key k to partition hash(k) mod N, where an
// integer is its own hash (so key 7 of HashPartitioner{3} lands in
// partition 1, as in Spark), and strings, floats, pairs, arrays and
// structs hash by value, the same in every process.
type HashPartitioner struct {
	N int // number of partitions
}

// NumPartitions returns N.
func (h HashPartitioner) NumPartitions() int { return h.N }

// Partition returns the partition of key.
func (h HashPartitioner) Partition(key any) int {
	return int(nonNegativeMod(int64(hashKey("HashPartitioner", key)), int64(h.N)))
}

func (h HashPartitioner) String() string { return fmt.Sprintf("HashPartitioner(%d)", h.N) }

func nonNegativeMod(x, n int64) int64 {
	m := x % n
	if m < 0 {
		m += n
	}
	return m
}

// RangePartitioner sends keys to partitions by ranges of sorted keys:
// partition i holds the keys between Bounds[i-1] and Bounds[i], so that
// sorting each partition sorts the whole RDD. NewRangePartitioner finds
// bounds that split an RDD into parts of about equal size.
type RangePartitioner struct {
	// Bounds are the largest key of each partition but the last,
	// ascending (keys equal to Bounds[i] go to partition i).
	Bounds []any
	// Descending reverses the order of the partitions.
	Descending bool
}

// NumPartitions is len(Bounds) + 1.
func (rp *RangePartitioner) NumPartitions() int { return len(rp.Bounds) + 1 }

// Partition returns the partition of key.
func (rp *RangePartitioner) Partition(key any) int {
	i := sort.Search(len(rp.Bounds), func(i int) bool { return compareKeys("RangePartitioner", rp.Bounds[i], key) >= 0 })
	if rp.Descending {
		return len(rp.Bounds) - i
	}
	return i
}

func (rp *RangePartitioner) String() string {
	return fmt.Sprintf("RangePartitioner(%d partitions)", rp.NumPartitions())
}

// NewRangePartitioner samples the keys of r, an RDD of pairs, and
// returns a partitioner that splits them into up to n ranges of about
// equal size, ascending or not (fewer when there are fewer distinct
// keys). Sampling runs a job, as in Spark; the draws depend on the
// partition index alone, so every run and every engine finds the same
// bounds.
func NewRangePartitioner(n int, r *RDD, ascending bool) (*RangePartitioner, error) {
	if n < 1 {
		return nil, fmt.Errorf("rdd: NewRangePartitioner(%d): need at least 1 partition", n)
	}
	if r == nil {
		return nil, fmt.Errorf("rdd: NewRangePartitioner of a nil RDD")
	}
	rp := &RangePartitioner{Descending: !ascending}
	if n == 1 || r.nparts == 0 {
		return rp, nil
	}
	// As Spark: about 20 keys per output partition, three times more
	// drawn to cover imbalanced input partitions.
	total := math.Min(20*float64(n), 1e6)
	perPart := int(math.Ceil(3 * total / float64(r.nparts)))
	res, err := r.run("NewRangePartitioner", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		p := tc.info.Partition
		rng := partitionRNG(0x5eed, p)
		keys := make([]any, 0, min(perPart, b.Len()))
		err := each("SortByKey", p, b.Len(), func(i int) {
			k := pairOf("SortByKey", b.at(i)).Key
			if len(keys) < perPart {
				keys = append(keys, k)
			} else if j := rng.IntN(i + 1); j < perPart {
				keys[j] = k // reservoir sampling
			}
		})
		return keySample{N: b.Len(), Keys: keys}, err
	})
	if err != nil {
		return nil, err
	}
	type weighted struct {
		key any
		w   float64
	}
	var cands []weighted
	for _, v := range res {
		s := v.(keySample)
		if len(s.Keys) == 0 {
			continue
		}
		w := float64(s.N) / float64(len(s.Keys))
		for _, k := range s.Keys {
			cands = append(cands, weighted{k, w})
		}
	}
	if len(cands) == 0 {
		return rp, nil
	}
	err = call("SortByKey", -1, func() {
		sort.SliceStable(cands, func(i, j int) bool { return compareKeys("SortByKey", cands[i].key, cands[j].key) < 0 })
	})
	if err != nil {
		return nil, err
	}
	sum := 0.0
	for _, c := range cands {
		sum += c.w
	}
	step := sum / float64(n)
	cum, target := 0.0, step
	for i, c := range cands {
		cum += c.w
		if cum < target || len(rp.Bounds) == n-1 {
			continue
		}
		if len(rp.Bounds) > 0 && compareKeys("SortByKey", c.key, rp.Bounds[len(rp.Bounds)-1]) == 0 {
			continue
		}
		if i == len(cands)-1 {
			break // the last key needs no bound
		}
		rp.Bounds = append(rp.Bounds, c.key)
		target += step
	}
	return rp, nil
}

// keySample is one partition's sampled keys and its size.
type keySample struct {
	N    int
	Keys []any
}
