package rdd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sparknet-go/sparknet/ndarray"
)

// PartitionWeights is what a task of SumWeights returns.
type PartitionWeights struct {
	// Weights are the collections to sum over the partitions: every
	// partition returns as many, each with the same layers and shapes as
	// the other partitions' at its index.
	Weights []*ndarray.WeightCollection
	// Value is the task's own small result (a loss, a count), returned
	// per partition as RunPartitions returns results; under an SPMD
	// engine it crosses processes, so its type must be registered
	// (Register).
	Value any
}

// WeightSums is what SumWeights returns.
type WeightSums struct {
	// Sums holds the sum over all partitions of each of the tasks'
	// collections, new collections owned by the caller.
	Sums []*ndarray.WeightCollection
	// Values holds the tasks' values in partition order.
	Values []any
	// ReduceTime is how long the sum took once the tasks were done
	// (adding the partitions' collections and, under an SPMD engine, the
	// allreduce): the communication part of the action.
	ReduceTime time.Duration
}

// SumWeights runs f once for every partition, on the worker that holds it
// (as RunPartitions does), and sums the weight collections the tasks
// return. It is the reduce of data-parallel training: a model replica per
// partition reports its weights, and the driver gets their sum.
//
// The sum runs in partition order: the first partition's collection is
// copied and the others are added one by one, so that it depends on the
// partitioning only, not on scheduling. Under an SPMD engine (MPI) every
// process sums the partitions it holds, in partition order, and the
// processes' sums are added with an allreduce: only the sums cross
// processes, never a partition's weights, and every process gets the same
// result (with two processes bit for bit that of a local master). A
// process that holds no partition contributes zeros.
//
// The collections are read after the job, not copied by the tasks: they
// must not change until SumWeights returns (the views of a replica's
// weights, say, which only the next job changes).
func (r *RDD) SumWeights(ctx context.Context, f func(tc *TaskContext) (PartitionWeights, error)) (*WeightSums, error) {
	if f == nil {
		return nil, fmt.Errorf("rdd: SumWeights: nil function")
	}
	var mu sync.Mutex
	held := map[int][]*ndarray.WeightCollection{} // this process's partitions
	values, err := r.runEach(ctx, "SumWeights", func(tc *TaskContext) (any, error) {
		pw, err := f(tc)
		if err != nil {
			return nil, err
		}
		for i, w := range pw.Weights {
			if w == nil {
				return nil, fmt.Errorf("rdd: SumWeights: partition %d returned a nil collection at %d", tc.info.Partition, i)
			}
		}
		mu.Lock()
		held[tc.info.Partition] = pw.Weights
		mu.Unlock()
		return pw.Value, nil
	})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sums, err := sumHeld(r.nparts, held)
	if err != nil {
		return nil, fmt.Errorf("rdd: SumWeights: %w", err)
	}
	if c := r.sc.Comm(); c != nil {
		if sums, err = r.sc.allreduceSums(c, sums, r.nparts); err != nil {
			return nil, fmt.Errorf("rdd: SumWeights: %w", err)
		}
	}
	return &WeightSums{Sums: sums, Values: values, ReduceTime: time.Since(start)}, nil
}

func init() {
	// The layout of the sums, which process 0 sends to processes that
	// hold no partition.
	if err := Register([]*ndarray.WeightCollection(nil)); err != nil {
		panic(err)
	}
}

// sumHeld sums the collections of the partitions held here, in partition
// order: nil when there are none.
func sumHeld(nparts int, held map[int][]*ndarray.WeightCollection) ([]*ndarray.WeightCollection, error) {
	var sums []*ndarray.WeightCollection
	first := -1
	for p := 0; p < nparts; p++ {
		ws, ok := held[p]
		if !ok {
			continue
		}
		if first < 0 {
			first = p
			sums = make([]*ndarray.WeightCollection, len(ws))
			for i, w := range ws {
				sums[i] = w.Clone()
			}
			continue
		}
		if len(ws) != len(sums) {
			return nil, fmt.Errorf("partition %d returned %d collections, partition %d %d", p, len(ws), first, len(sums))
		}
		for i, w := range ws {
			if err := sums[i].Compatible(w); err != nil {
				return nil, fmt.Errorf("partition %d, collection %d does not match partition %d's: %w", p, i, first, err)
			}
			sums[i].AddInPlace(w)
		}
	}
	return sums, nil
}

// allreduceSums adds the processes' sums. A process that holds no
// partition (more processes than partitions) takes the layout of the
// sums from process 0, which holds partition 0, and contributes zeros.
func (sc *Context) allreduceSums(c Comm, sums []*ndarray.WeightCollection, nparts int) ([]*ndarray.WeightCollection, error) {
	// Partition p lives on process p mod size, so every process knows
	// whether some hold none.
	if nparts < c.Size() {
		var layout []*ndarray.WeightCollection
		if c.Rank() == 0 {
			layout = make([]*ndarray.WeightCollection, len(sums))
			for i, s := range sums {
				layout[i] = s.Scale(0)
			}
		}
		shared, err := sc.engine.Broadcast(layout)
		if err != nil {
			return nil, err
		}
		if c.Rank() >= nparts {
			sums = shared.([]*ndarray.WeightCollection)
		}
	}
	for _, s := range sums {
		if err := AllreduceWeights(c, s); err != nil {
			return nil, err
		}
	}
	return sums, nil
}
