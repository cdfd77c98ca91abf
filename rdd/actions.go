package rdd

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/sparknet-go/sparknet/data"
)

// Actions run a job and return its result with an error last. A failed
// task is retried; when its last attempt fails the action returns a
// *TaskError naming the partition, the attempts and the cause. Callbacks
// run on the workers, several at a time, so they must be safe to call
// concurrently; panics in them become errors.

// run runs a job returning fn of each of parts, in order.
func (r *RDD) run(action string, parts []int, fn func(tc *TaskContext, b block) (any, error)) ([]any, error) {
	var out []any
	err := r.sc.runJob(context.Background(), action, len(parts), func(j *jobState) error {
		var err error
		out, err = r.sc.runRDD(j, r, parts, fn)
		return err
	})
	return out, err
}

// Collect returns all elements, in partition order.
func (r *RDD) Collect() ([]any, error) {
	res, err := r.run("Collect", allPartitions(r.nparts), func(_ *TaskContext, b block) (any, error) {
		return b.elements(), nil
	})
	if err != nil {
		return nil, err
	}
	var out []any
	for _, v := range res {
		out = append(out, v.([]any)...)
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// CollectSamples returns the samples of an RDD of samples as one set.
func (r *RDD) CollectSamples() (*data.Samples, error) {
	if !r.samples {
		return nil, fmt.Errorf("rdd: CollectSamples needs an RDD of samples; %s holds other elements (use Collect)", r.label())
	}
	res, err := r.run("CollectSamples", allPartitions(r.nparts), func(_ *TaskContext, b block) (any, error) {
		if b.Samples == nil {
			return nil, fmt.Errorf("rdd: partition of %s holds no samples", r.label())
		}
		return b.Samples, nil
	})
	if err != nil {
		return nil, err
	}
	parts := make([]*data.Samples, len(res))
	for i, v := range res {
		parts[i] = v.(*data.Samples)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("rdd: CollectSamples of %s: no partitions", r.label())
	}
	s, err := data.Concat(parts...)
	if err != nil {
		return nil, fmt.Errorf("rdd: %w", err)
	}
	return s, nil
}

// Count returns the number of elements.
func (r *RDD) Count() (int, error) {
	res, err := r.run("Count", allPartitions(r.nparts), func(_ *TaskContext, b block) (any, error) {
		return b.Len(), nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range res {
		n += v.(int)
	}
	return n, nil
}

// Take returns the first n elements (fewer if the RDD is smaller). As in
// Spark, it scans one partition first, then more partitions per job as
// the elements found so far suggest, and every task stops computing its
// partition once it has the elements still wanted (Map, Filter, FlatMap
// and the other element-wise transformations compute elements one at a
// time for it), so Take(2) and First of a slow Map compute little more
// than what they return.
func (r *RDD) Take(n int) ([]any, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	out := []any{}
	if n <= 0 {
		return out, nil
	}
	for scanned := 0; scanned < r.nparts && len(out) < n; {
		try := 1
		if scanned > 0 {
			// Spark's rule: four times as many partitions when none
			// had elements, else as many as the rate so far suggests
			// (with half as many again), at most four times as many.
			try = 4 * scanned
			if len(out) > 0 {
				try = min(try, max(1, int(math.Ceil(1.5*float64(n)*float64(scanned)/float64(len(out))))-scanned))
			}
		}
		end := min(r.nparts, scanned+try)
		need := n - len(out)
		var res []any
		err := r.sc.runJob(context.Background(), "Take", end-scanned, func(j *jobState) error {
			var err error
			res, err = r.sc.runPartitions(j, r, allPartitions(end)[scanned:], func(tc *TaskContext) (any, error) {
				got := make([]any, 0, min(need, 64))
				err := r.iterate(tc, tc.info.Partition, func(x any) bool {
					got = append(got, x)
					return len(got) < need
				})
				return got, err
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, v := range res {
			out = append(out, v.([]any)...)
		}
		scanned = end
	}
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// First returns the first element, or an error wrapping ErrEmpty. It
// computes only what it needs (see Take).
func (r *RDD) First() (any, error) {
	res, err := r.Take(1)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%w: First of %s", ErrEmpty, r.label())
	}
	return res[0], nil
}

// IsEmpty reports whether the RDD has no elements; it stops at the
// first element it finds.
func (r *RDD) IsEmpty() (bool, error) {
	res, err := r.Take(1)
	return len(res) == 0, err
}

// optional is a partition's partial result that may be absent.
type optional struct {
	V  any
	OK bool
}

// Reduce combines all elements with f, such as func(a, b float64)
// float64, which must be associative (and, as partitions finish in any
// order, is applied within partitions in element order and then to the
// partition results in partition order). An empty RDD gives an error
// wrapping ErrEmpty.
func (r *RDD) Reduce(f any) (any, error) {
	g, err := binop("Reduce", f)
	if err != nil {
		return nil, fmt.Errorf("rdd: %w", err)
	}
	res, err := r.run("Reduce", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		if b.Len() == 0 {
			return optional{}, nil
		}
		acc := b.at(0)
		err := each("Reduce", tc.info.Partition, b.Len()-1, func(i int) { acc = g(acc, b.at(i+1)) })
		var te *typeError
		if errors.As(err, &te) && te.arg == 0 && te.elem == 0 {
			return nil, err // the first element, as the running value
		}
		return optional{acc, true}, placeShift(err, 1)
	})
	if err != nil {
		return nil, err
	}
	var acc any
	found := false
	err = each("Reduce", -1, len(res), func(i int) {
		o := res[i].(optional)
		switch {
		case !o.OK:
		case !found:
			acc, found = o.V, true
		default:
			acc = g(acc, o.V)
		}
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: Reduce of %s", ErrEmpty, r.label())
	}
	return acc, nil
}

// placeShift adds k to the element index of a callback error from a loop
// that started at element k.
func placeShift(err error, k int) error {
	if err == nil {
		return nil
	}
	var te *typeError
	if errors.As(err, &te) {
		return NoRetry(te.placedAt(te.part, te.elem+k))
	}
	var pe *PanicError
	if errors.As(err, &pe) && pe.Element >= 0 {
		pe.Element += k
	}
	return err
}

// Fold folds every partition with f starting from zero, then folds the
// partition results starting from zero again, as Spark does. Every
// partition, and the final fold, gets its own copy of zero (a deep copy;
// or zero is a function with no arguments that returns a new zero
// value), so f may modify its first argument and return it.
func (r *RDD) Fold(zero any, f any) (any, error) {
	return r.aggregate("Fold", zero, f, f, 0)
}

// Aggregate folds every partition with seqOp starting from zero, then
// combines the partition results with combOp starting from zero, as in
// Spark: a label histogram is
//
//	counts, err := r.Aggregate(make([]int, 10),
//		func(h []int, s data.Sample) []int { h[int(s.Label)]++; return h },
//		func(a, b []int) []int { for i := range a { a[i] += b[i] }; return a })
//
// Every partition, and the final combination, gets its own copy of zero
// (a deep copy; or zero is a function with no arguments that returns a
// new zero value), so the functions may modify their first argument and
// return it.
func (r *RDD) Aggregate(zero any, seqOp, combOp any) (any, error) {
	return r.aggregate("Aggregate", zero, seqOp, combOp, 0)
}

// TreeAggregate is Aggregate with the partition results combined in a
// tree of the given depth (2 if depth < 1) on the workers: at each level
// runs of consecutive results are combined in order, so the answer equals
// Aggregate's when combOp is associative, while the driver combines only
// a few values.
func (r *RDD) TreeAggregate(zero any, seqOp, combOp any, depth int) (any, error) {
	if depth < 1 {
		depth = 2
	}
	return r.aggregate("TreeAggregate", zero, seqOp, combOp, depth)
}

// aggregate implements Fold, Aggregate and TreeAggregate (depth > 0).
func (r *RDD) aggregate(action string, zero any, seqOp, combOp any, depth int) (any, error) {
	seq, err := binop(action, seqOp)
	if err != nil {
		return nil, fmt.Errorf("rdd: %w", err)
	}
	comb, err := binop(action, combOp)
	if err != nil {
		return nil, fmt.Errorf("rdd: %w", err)
	}
	mk, err := zeroMaker(action, zero, acc1Type(seqOp))
	if err != nil {
		return nil, fmt.Errorf("rdd: %w", err)
	}
	var result any
	err = r.sc.runJob(context.Background(), action, r.nparts, func(j *jobState) error {
		res, err := r.sc.runRDD(j, r, allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
			var acc any
			if err := call(action, tc.info.Partition, func() { acc = mk() }); err != nil {
				return nil, err
			}
			err := each(action, tc.info.Partition, b.Len(), func(i int) { acc = seq(acc, b.at(i)) })
			return acc, err
		})
		if err != nil {
			return err
		}
		if depth > 0 {
			scale := 2
			for s := 2; ; s++ {
				// The smallest fan-in with s^depth >= partitions.
				p := 1
				for k := 0; k < depth; k++ {
					p *= s
				}
				if p >= len(res) {
					scale = s
					break
				}
			}
			for len(res) > scale {
				groups := (len(res) + scale - 1) / scale
				level := res
				res, err = r.sc.runStage(j, fmt.Sprintf("%s level of %d", action, groups), allPartitions(groups), func(tc *TaskContext) (any, error) {
					g := tc.info.Partition
					lo, hi := g*scale, min(len(level), (g+1)*scale)
					acc := level[lo]
					err := each(action, g, hi-lo-1, func(i int) { acc = comb(acc, level[lo+1+i]) })
					return acc, err
				})
				if err != nil {
					return err
				}
			}
		}
		var acc any
		if err := call(action, -1, func() { acc = mk() }); err != nil {
			return err
		}
		if err := each(action, -1, len(res), func(i int) { acc = comb(acc, res[i]) }); err != nil {
			return err
		}
		result = acc
		return nil
	})
	return result, err
}

// Foreach calls f, such as func(x int), on every element, on the
// workers.
func (r *RDD) Foreach(f any) error {
	g, err := consumer("Foreach", f)
	if err != nil {
		return fmt.Errorf("rdd: %w", err)
	}
	_, err = r.run("Foreach", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		return nil, each("Foreach", tc.info.Partition, b.Len(), func(i int) { g(b.at(i)) })
	})
	return err
}

// ForeachPartition calls f once per partition with its own copy of the
// partition's elements as a slice (such as func(xs []string)), on the
// worker that holds the partition.
func (r *RDD) ForeachPartition(f any) error {
	g, err := partitionFunc("ForeachPartition", f, false, 0)
	if err != nil {
		return fmt.Errorf("rdd: %w", err)
	}
	_, err = r.run("ForeachPartition", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		it := b.elements()
		if b.Samples == nil {
			it = append([]any(nil), it...)
		}
		return nil, call("ForeachPartition", tc.info.Partition, func() { g(tc.info.Partition, it) })
	})
	return err
}
