// Package spmdtest holds driver code that tests run under every engine:
// a local master, goroutine ranks over rdd.NewLocalComms, and MPI ranks
// under mpirun. Every run must describe the same results.
package spmdtest

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/rdd"
)

// Driver runs transformations and actions of every kind on sc, as every
// rank of an SPMD job would, and describes what it computed, one line
// per action.
func Driver(sc *rdd.Context) string {
	var b strings.Builder
	say := func(what string, v any, err error) { fmt.Fprintf(&b, "%s: %v %v\n", what, v, err) }
	sum := func(a, b any) any { return a.(int) + b.(int) }

	xs := sc.Range(0, 50, 1, 5).Cache()
	sq := xs.Map(func(x any) any { return x.(int) * x.(int) })
	v1, err := sq.Collect()
	say("collect", v1, err)
	v2, err := sq.Filter(func(x any) bool { return x.(int)%3 == 0 }).Count()
	say("count", v2, err)
	v3, err := sq.Reduce(sum)
	say("reduce", v3, err)
	v4, err := xs.TreeAggregate("", func(a, x any) any { return a.(string) + fmt.Sprint(x) }, func(a, b any) any { return a.(string) + b.(string) }, 2)
	say("treeAggregate", v4, err)
	v5, err := xs.Repartition(3).MapPartitionsWithIndex(func(p int, it []any) []any { return []any{fmt.Sprint(p, it)} }).Collect()
	say("repartition", v5, err)
	v6, err := xs.Union(sc.Parallelize([]string{"a", "b", "c"}, 2)).Coalesce(2).Collect()
	say("union+coalesce", v6, err)
	v7, err := xs.Zip(sq).Sample(false, 0.4, 3).Take(4)
	say("zip+sample+take", v7, err)

	acc := sc.Accumulator("odd")
	bc, err := sc.Broadcast(map[string]any{"offset": 1000})
	if err != nil {
		say("broadcast", nil, err)
		return b.String()
	}
	v8, err := xs.Map(func(x any) any {
		if x.(int)%2 == 1 {
			acc.Add(1)
		}
		return x.(int) + bc.Value().(map[string]any)["offset"].(int)
	}).Take(3)
	say("broadcast", v8, err)
	say("accumulator", acc.Value(), nil)

	s, err := data.NewSamples(20, 1, 1, 2, true)
	if err != nil {
		say("samples", nil, err)
		return b.String()
	}
	for i := range s.Labels {
		s.Labels[i] = float32(i)
		s.Floats[2*i] = float32(i)
	}
	samples := sc.ParallelizeSamples(s, 4).Cache()
	v9, err := samples.RunPartitions(nil, func(tc *rdd.TaskContext) (any, error) {
		n := tc.Store().Get("runs")
		if n == nil {
			n = 0
		}
		tc.Store().Set("runs", n.(int)+1)
		var sum float32
		for _, l := range tc.Samples().Labels {
			sum += l
		}
		return []float32{sum, float32(tc.Worker())}, nil
	})
	say("runPartitions", v9, err)
	v10, err := samples.Filter(func(x any) bool { return x.(data.Sample).Label >= 15 }).Repartition(2).CollectSamples()
	if err == nil {
		say("samples", fmt.Sprint(v10.Labels, v10.Floats), err)
	}
	v11, err := sc.RunWorkers(nil, func(tc *rdd.TaskContext) (any, error) { return tc.Store().Get("runs"), nil })
	say("runWorkers", v11, err)
	ws, err := weightSum(sc, samples)
	say("allreduceWeights", ws, err)
	ws, err = sumWeights(samples)
	say("sumWeights", ws, err)
	ws, err = sumWeights(sc.ParallelizeSamples(s, 2)) // fewer partitions than ranks
	say("sumWeights of 2", ws, err)
	_, err = xs.Map(func(x any) any {
		if x.(int) == 17 { // partition 1, on rank 1 of 3
			panic("seventeen")
		}
		return x
	}).Count()
	var te *rdd.TaskError
	say("error", errors.As(err, &te) && te.Partition == 1, err)
	_, err = sc.Parallelize([]int{}, 2).First()
	say("empty", errors.Is(err, rdd.ErrEmpty), err)
	say("agree", nil, sc.Agree(nil))
	return b.String()
}

// weightSum sums weights made by every partition the way a trainer
// does: each process adds up the partitions it holds, in partition
// order, then sums over the ranks with AllreduceWeights.
func weightSum(sc *rdd.Context, r *rdd.RDD) (string, error) {
	var mu sync.Mutex
	mine := map[int]*ndarray.WeightCollection{}
	_, err := r.RunPartitions(nil, func(tc *rdd.TaskContext) (any, error) {
		p := float32(tc.Partition())
		w := ndarray.NewWeightCollection()
		w.Set("conv", ndarray.FromValues(p, 2*p, 3*p, 4*p).Reshape(2, 2).T(), ndarray.FromValues(1))
		w.Set("ip", ndarray.Full(p, 3, 1<<15).Slice(0, 0, 2).Reshape(1<<16))
		mu.Lock()
		mine[tc.Partition()] = w
		mu.Unlock()
		return nil, nil
	})
	if err != nil {
		return "", err
	}
	var parts []int
	for p := range mine {
		parts = append(parts, p)
	}
	sort.Ints(parts)
	total := zeroLike(mine[parts[0]])
	for _, p := range parts {
		total.AddInPlace(mine[p])
	}
	if err := rdd.AllreduceWeights(sc.Comm(), total); err != nil {
		return "", err
	}
	ip := total.Get("ip")[0]
	return fmt.Sprint(total.Get("conv")[0].Contiguous().Data(), total.Get("conv")[1].Data(), ip.At(0), ip.At(1<<16-1), ip.Size()), nil
}

// sumWeights sums two collections made by every partition with
// SumWeights, and describes the sums and the partitions' values.
func sumWeights(r *rdd.RDD) (string, error) {
	res, err := r.SumWeights(nil, func(tc *rdd.TaskContext) (rdd.PartitionWeights, error) {
		p := float32(tc.Partition())
		w := ndarray.NewWeightCollection()
		w.Set("conv", ndarray.FromValues(p, 2*p, 3*p, 4*p).Reshape(2, 2).T(), ndarray.FromValues(1))
		w.Set("ip", ndarray.Full(p, 3, 1<<15).Slice(0, 0, 2).Reshape(1<<16))
		h := ndarray.NewWeightCollection()
		h.Set("m", ndarray.FromValues(-0.5*p))
		return rdd.PartitionWeights{Weights: []*ndarray.WeightCollection{w, h}, Value: 10 * tc.Partition()}, nil
	})
	if err != nil {
		return "", err
	}
	w, h := res.Sums[0], res.Sums[1]
	ip := w.Get("ip")[0]
	return fmt.Sprint(w.Get("conv")[0].Contiguous().Data(), w.Get("conv")[1].Data(), ip.At(0), ip.At(1<<16-1), ip.Size(),
		h.Get("m")[0].Data(), res.Values), nil
}

// zeroLike returns zeros shaped as w.
func zeroLike(w *ndarray.WeightCollection) *ndarray.WeightCollection {
	z := w.Clone()
	for _, l := range z.Layers() {
		for _, a := range z.Get(l) {
			a.Fill(0)
		}
	}
	return z
}
