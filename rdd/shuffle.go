package rdd

import (
	"fmt"
	"sync"
)

// Coalesce returns an RDD with n partitions (at most the current number)
// without a shuffle: partition i joins the parent partitions [i*P/n,
// (i+1)*P/n). RDDs of samples stay samples.
func (r *RDD) Coalesce(n int) *RDD {
	if n <= 0 {
		return r.sc.failed("Coalesce", fmt.Errorf("rdd: Coalesce to %d partitions: need at least 1", n), r)
	}
	n = min(n, r.nparts)
	parts := r.nparts
	return r.sc.newRDD("Coalesce", n, r.samples, []*RDD{r}, func(tc *TaskContext, p int) (block, error) {
		lo, hi := partitionBounds(parts, n, p)
		bs := make([]block, 0, hi-lo)
		for q := lo; q < hi; q++ {
			b, err := r.iterator(tc, q)
			if err != nil {
				return block{}, err
			}
			bs = append(bs, b)
		}
		if len(bs) == 0 {
			return r.emptyBlock(), nil
		}
		return concatBlocks(bs)
	})
}

// emptyBlock is a partition without elements.
func (r *RDD) emptyBlock() block { return block{Elems: []any{}} }

// Repartition returns an RDD with n partitions, reshuffling the elements:
// each parent partition deals its elements round-robin to the new
// partitions, starting at a place drawn from its index, so the result is
// balanced and the same on every run. The shuffle's output is computed
// once, by the first job that needs it, and kept by the driver. RDDs of
// samples stay samples.
func (r *RDD) Repartition(n int) *RDD {
	if n <= 0 {
		return r.sc.failed("Repartition", fmt.Errorf("rdd: Repartition to %d partitions: need at least 1", n), r)
	}
	dep := &shuffleDep{parent: r, n: n}
	out := r.sc.newRDD("Repartition", n, r.samples, []*RDD{r}, func(tc *TaskContext, p int) (block, error) {
		outputs := dep.result()
		if outputs == nil {
			return block{}, fmt.Errorf("rdd: shuffle output of %s is missing", r.label())
		}
		bs := make([]block, len(outputs))
		for m := range outputs {
			bs[m] = outputs[m][p]
		}
		if len(bs) == 0 {
			return r.emptyBlock(), nil
		}
		return concatBlocks(bs)
	})
	out.shuffle = dep
	return out
}

// shuffleDep is the map side of a shuffle: every parent partition split
// into n buckets, kept once computed.
type shuffleDep struct {
	parent *RDD
	n      int

	mu      sync.Mutex
	outputs [][]block // [parent partition][output partition]
}

func (d *shuffleDep) result() [][]block {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.outputs
}

// run computes the buckets unless they are there already.
func (d *shuffleDep) run(sc *Context, j *jobState) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.outputs != nil {
		return nil
	}
	res, err := sc.runStage(j, "shuffle "+d.parent.label(), allPartitions(d.parent.nparts), func(tc *TaskContext) (any, error) {
		p := tc.info.Partition
		b, err := d.parent.iterator(tc, p)
		if err != nil {
			return nil, err
		}
		idx := make([][]int, d.n)
		start := partitionRNG(int64(p), p).IntN(d.n)
		for i := 0; i < b.Len(); i++ {
			k := (start + i) % d.n
			idx[k] = append(idx[k], i)
		}
		buckets := make([]block, d.n)
		for k := range buckets {
			if buckets[k], err = b.pick(idx[k]); err != nil {
				return nil, err
			}
		}
		return buckets, nil
	})
	if err != nil {
		return err
	}
	outputs := make([][]block, len(res))
	for m, v := range res {
		bs, ok := v.([]block)
		if !ok || len(bs) != d.n {
			return fmt.Errorf("rdd: shuffle of %s: partition %d returned %T", d.parent.label(), m, v)
		}
		outputs[m] = bs
	}
	d.outputs = outputs
	return nil
}
