package rdd

import (
	"context"
	"fmt"

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

// Take returns the first n elements (fewer if the RDD is smaller). It
// scans one partition first, then four times as many per job until it has
// enough, as Spark does.
func (r *RDD) Take(n int) ([]any, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	out := []any{}
	if n <= 0 {
		return out, nil
	}
	for next, batch := 0, 1; next < r.nparts && len(out) < n; batch *= 4 {
		end := min(r.nparts, next+batch)
		need := n - len(out)
		res, err := r.run("Take", allPartitions(end)[next:], func(_ *TaskContext, b block) (any, error) {
			return b.slice(0, min(b.Len(), need)).elements(), nil
		})
		if err != nil {
			return nil, err
		}
		for _, v := range res {
			out = append(out, v.([]any)...)
		}
		next = end
	}
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// First returns the first element, or an error wrapping ErrEmpty.
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

// optional is a partition's partial result that may be absent.
type optional struct {
	V  any
	OK bool
}

// Reduce combines all elements with f, which must be associative (and,
// as partitions finish in any order, is applied within partitions in
// element order and then to the partition results in partition order).
// An empty RDD gives an error wrapping ErrEmpty.
func (r *RDD) Reduce(f func(a, b any) any) (any, error) {
	if f == nil {
		return nil, fmt.Errorf("rdd: Reduce needs a function, got nil")
	}
	res, err := r.run("Reduce", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		if b.Len() == 0 {
			return optional{}, nil
		}
		acc := b.at(0)
		err := each("Reduce", tc.info.Partition, b.Len()-1, func(i int) { acc = f(acc, b.at(i+1)) })
		return optional{acc, true}, err
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
			acc = f(acc, o.V)
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

// Fold folds every partition with f starting from zero, then folds the
// partition results starting from zero again, as Spark does. zero is
// shared by all partitions: f must not modify its arguments.
func (r *RDD) Fold(zero any, f func(a, b any) any) (any, error) {
	if f == nil {
		return nil, fmt.Errorf("rdd: Fold needs a function, got nil")
	}
	return r.aggregate("Fold", zero, f, f, 0)
}

// Aggregate folds every partition with seqOp starting from zero, then
// combines the partition results with combOp starting from zero. zero is
// shared by all partitions: the functions must not modify it.
func (r *RDD) Aggregate(zero any, seqOp, combOp func(a, b any) any) (any, error) {
	if seqOp == nil || combOp == nil {
		return nil, fmt.Errorf("rdd: Aggregate needs two functions, got nil")
	}
	return r.aggregate("Aggregate", zero, seqOp, combOp, 0)
}

// TreeAggregate is Aggregate with the partition results combined in a
// tree of the given depth (2 if depth < 1) on the workers: at each level
// runs of consecutive results are combined in order, so the answer equals
// Aggregate's when combOp is associative, while the driver combines only
// a few values.
func (r *RDD) TreeAggregate(zero any, seqOp, combOp func(a, b any) any, depth int) (any, error) {
	if seqOp == nil || combOp == nil {
		return nil, fmt.Errorf("rdd: TreeAggregate needs two functions, got nil")
	}
	if depth < 1 {
		depth = 2
	}
	return r.aggregate("TreeAggregate", zero, seqOp, combOp, depth)
}

// aggregate implements Fold, Aggregate and TreeAggregate (depth > 0).
func (r *RDD) aggregate(action string, zero any, seqOp, combOp func(a, b any) any, depth int) (any, error) {
	var result any
	err := r.sc.runJob(context.Background(), action, r.nparts, func(j *jobState) error {
		res, err := r.sc.runRDD(j, r, allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
			acc := zero
			err := each(action, tc.info.Partition, b.Len(), func(i int) { acc = seqOp(acc, b.at(i)) })
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
					err := each(action, g, hi-lo-1, func(i int) { acc = combOp(acc, level[lo+1+i]) })
					return acc, err
				})
				if err != nil {
					return err
				}
			}
		}
		acc := zero
		if err := each(action, -1, len(res), func(i int) { acc = combOp(acc, res[i]) }); err != nil {
			return err
		}
		result = acc
		return nil
	})
	return result, err
}

// Foreach calls f on every element, on the workers.
func (r *RDD) Foreach(f func(any)) error {
	if f == nil {
		return fmt.Errorf("rdd: Foreach needs a function, got nil")
	}
	_, err := r.run("Foreach", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		return nil, each("Foreach", tc.info.Partition, b.Len(), func(i int) { f(b.at(i)) })
	})
	return err
}

// ForeachPartition calls f once per partition with its own copy of the
// partition's elements, on the worker that holds the partition.
func (r *RDD) ForeachPartition(f func(it []any)) error {
	if f == nil {
		return fmt.Errorf("rdd: ForeachPartition needs a function, got nil")
	}
	_, err := r.run("ForeachPartition", allPartitions(r.nparts), func(tc *TaskContext, b block) (any, error) {
		it := b.elements()
		if b.Samples == nil {
			it = append([]any(nil), it...)
		}
		return nil, call("ForeachPartition", tc.info.Partition, func() { f(it) })
	})
	return err
}
