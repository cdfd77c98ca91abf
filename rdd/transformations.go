package rdd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"

	"github.com/sparknet-go/sparknet/data"
)

// partitionBounds returns the range of n elements that partition p of
// parts holds: [p*n/parts, (p+1)*n/parts), as Spark slices collections.
func partitionBounds(n, parts, p int) (int, int) {
	return int(int64(p) * int64(n) / int64(parts)), int(int64(p+1) * int64(n) / int64(parts))
}

// partitionRNG is the random source for partition p under seed: the same
// for every run, whichever worker computes the partition.
func partitionRNG(seed int64, p int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(p)*0x9E3779B97F4A7C15+0x2545F4914F6CDD1D))
}

// Parallelize distributes the elements of a slice (of any element type)
// over numPartitions partitions (0 means DefaultParallelism): partition p
// holds elements [p*n/numPartitions, (p+1)*n/numPartitions). A
// *data.Samples is distributed as ParallelizeSamples does. The slice is
// copied, so later changes to it are not seen.
func (sc *Context) Parallelize(slice any, numPartitions int) *RDD {
	if s, ok := slice.(*data.Samples); ok {
		return sc.ParallelizeSamples(s, numPartitions)
	}
	numPartitions, err := sc.partitionsOrDefault("Parallelize", numPartitions)
	if err != nil {
		return sc.failed("Parallelize", err)
	}
	elems, err := toElements(slice)
	if err != nil {
		return sc.failed("Parallelize", err)
	}
	n := numPartitions
	return sc.newRDD("Parallelize", n, false, nil, func(_ *TaskContext, p int) (block, error) {
		i, j := partitionBounds(len(elems), n, p)
		return block{Elems: elems[i:j:j]}, nil
	})
}

// partitionsOrDefault returns a requested number of partitions, with 0
// meaning DefaultParallelism; a negative number is an error.
func (sc *Context) partitionsOrDefault(op string, n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("rdd: %s into %d partitions: want at least 1, or 0 for the default (%d)", op, n, sc.DefaultParallelism())
	case n == 0:
		return sc.DefaultParallelism(), nil
	}
	return n, nil
}

// toElements copies a slice or array into a []any.
func toElements(slice any) ([]any, error) {
	if s, ok := slice.([]any); ok {
		return append([]any(nil), s...), nil
	}
	v := reflect.ValueOf(slice)
	if !v.IsValid() || (v.Kind() != reflect.Slice && v.Kind() != reflect.Array) {
		return nil, fmt.Errorf("rdd: Parallelize needs a slice or array, got %T", slice)
	}
	out := make([]any, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface()
	}
	return out, nil
}

// Range returns the ints start, start+step, ... up to end (excluded), in
// numPartitions partitions (0 means DefaultParallelism). Elements are
// computed in their partitions, not held by the driver.
func (sc *Context) Range(start, end, step, numPartitions int) *RDD {
	if step == 0 {
		return sc.failed("Range", fmt.Errorf("rdd: Range step must not be 0"))
	}
	numPartitions, err := sc.partitionsOrDefault("Range", numPartitions)
	if err != nil {
		return sc.failed("Range", err)
	}
	n := 0
	if step > 0 && end > start {
		n = (end - start + step - 1) / step
	} else if step < 0 && end < start {
		n = (start - end - step - 1) / -step
	}
	parts := numPartitions
	return sc.newRDD("Range", parts, false, nil, func(_ *TaskContext, p int) (block, error) {
		i, j := partitionBounds(n, parts, p)
		out := make([]any, j-i)
		for k := range out {
			out[k] = start + (i+k)*step
		}
		return block{Elems: out}, nil
	})
}

// narrow returns a child with r's partitions, partition p computed by f
// from r's partition p.
func (r *RDD) narrow(op string, samples bool, f func(tc *TaskContext, p int, in block) (block, error)) *RDD {
	return r.sc.newRDD(op, r.nparts, samples, []*RDD{r}, func(tc *TaskContext, p int) (block, error) {
		in, err := r.iterator(tc, p)
		if err != nil {
			return block{}, err
		}
		return f(tc, p, in)
	})
}

// badFunc returns a failed RDD for a callback of the wrong shape.
func (r *RDD) badFunc(op string, err error) *RDD {
	return r.sc.failed(op, fmt.Errorf("rdd: %w", err), r)
}

// mapElems returns the narrow child whose partition p is f of every
// element of r's, computed whole or streamed element by element (for
// Take and First, which stop early).
func (r *RDD) mapElems(op string, f func(any) any) *RDD {
	out := r.narrow(op, false, func(_ *TaskContext, p int, in block) (block, error) {
		res := make([]any, in.Len())
		err := each(op, p, len(res), func(i int) { res[i] = f(in.at(i)) })
		return block{Elems: res}, err
	})
	out.stream = func(tc *TaskContext, p int, yield func(any) bool) error {
		i := 0
		var ferr error
		err := r.iterate(tc, p, func(x any) bool {
			var y any
			if ferr = each(op, p, 1, func(int) { y = f(x) }); ferr != nil {
				return false
			}
			i++
			return yield(y)
		})
		if ferr != nil {
			return placeElem(ferr, i)
		}
		return err
	}
	return out
}

// flatMapElems is mapElems for a function giving any number of elements.
func (r *RDD) flatMapElems(op string, f func(any) []any) *RDD {
	out := r.narrow(op, false, func(_ *TaskContext, p int, in block) (block, error) {
		var res []any
		err := each(op, p, in.Len(), func(i int) { res = append(res, f(in.at(i))...) })
		return block{Elems: res}, err
	})
	out.stream = func(tc *TaskContext, p int, yield func(any) bool) error {
		i := 0
		var ferr error
		err := r.iterate(tc, p, func(x any) bool {
			var ys []any
			if ferr = each(op, p, 1, func(int) { ys = f(x) }); ferr != nil {
				return false
			}
			i++
			for _, y := range ys {
				if !yield(y) {
					return false
				}
			}
			return true
		})
		if ferr != nil {
			return placeElem(ferr, i)
		}
		return err
	}
	return out
}

// placeElem fixes the element index of an error from a callback called
// on one element at a time.
func placeElem(err error, i int) error {
	var te *typeError
	if errors.As(err, &te) {
		return NoRetry(te.placedAt(te.part, i))
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		pe.Element = i
	}
	return err
}

// Map returns the RDD of f(x) for every element x. f is a function of
// the elements' type, such as func(x int) int or func(s string) rdd.Pair,
// or func(x any) any.
func (r *RDD) Map(f any) *RDD {
	g, err := unary("Map", f)
	if err != nil {
		return r.badFunc("Map", err)
	}
	return r.mapElems("Map", g)
}

// Filter returns the RDD of the elements for which keep, such as
// func(s string) bool, is true. An RDD of samples stays one.
func (r *RDD) Filter(keep any) *RDD {
	k, err := predicate("Filter", keep)
	if err != nil {
		return r.badFunc("Filter", err)
	}
	out := r.narrow("Filter", r.samples, func(_ *TaskContext, p int, in block) (block, error) {
		var idx []int
		err := each("Filter", p, in.Len(), func(i int) {
			if k(in.at(i)) {
				idx = append(idx, i)
			}
		})
		if err != nil {
			return block{}, err
		}
		return in.pick(idx)
	})
	out.stream = func(tc *TaskContext, p int, yield func(any) bool) error {
		i := 0
		var ferr error
		err := r.iterate(tc, p, func(x any) bool {
			var ok bool
			if ferr = each("Filter", p, 1, func(int) { ok = k(x) }); ferr != nil {
				return false
			}
			i++
			return !ok || yield(x)
		})
		if ferr != nil {
			return placeElem(ferr, i)
		}
		return err
	}
	return out
}

// FlatMap returns the RDD of the elements of f(x), in order, for every
// element x; f returns a slice, as func(line string) []string does.
func (r *RDD) FlatMap(f any) *RDD {
	g, err := flat("FlatMap", f)
	if err != nil {
		return r.badFunc("FlatMap", err)
	}
	return r.flatMapElems("FlatMap", g)
}

// MapPartitions returns the RDD made of f(elements) for every partition:
// f takes the partition's elements as a slice, such as func(xs []int)
// []string, and gets its own copy of them.
func (r *RDD) MapPartitions(f any) *RDD {
	g, err := partitionFunc("MapPartitions", f, false, 1)
	if err != nil {
		return r.badFunc("MapPartitions", err)
	}
	return r.mapPartitions("MapPartitions", g)
}

// MapPartitionsWithIndex is MapPartitions with the partition index
// passed to f first, as in func(p int, xs []int) []int.
func (r *RDD) MapPartitionsWithIndex(f any) *RDD {
	g, err := partitionFunc("MapPartitionsWithIndex", f, true, 1)
	if err != nil {
		return r.badFunc("MapPartitionsWithIndex", err)
	}
	return r.mapPartitions("MapPartitionsWithIndex", g)
}

func (r *RDD) mapPartitions(op string, f func(p int, it []any) []any) *RDD {
	return r.sc.newRDD(op, r.nparts, false, []*RDD{r}, func(tc *TaskContext, p int) (block, error) {
		in, err := r.iterator(tc, p)
		if err != nil {
			return block{}, err
		}
		it := in.elements()
		if in.Samples == nil {
			it = append([]any(nil), it...)
		}
		var res []any
		err = call(op, p, func() { res = f(p, it) })
		return block{Elems: res}, err
	})
}

// setOp renames the operation shown in lineage and errors.
func (r *RDD) setOp(op string) *RDD {
	r.op = op
	return r
}

// Sample returns a random sample of about fraction of the elements:
// without replacement each element is kept with probability fraction;
// with replacement each appears a Poisson(fraction) number of times. The
// draws depend only on seed and the partition index, so equal seeds give
// equal samples. An RDD of samples stays one.
func (r *RDD) Sample(withReplacement bool, fraction float64, seed int64) *RDD {
	if fraction < 0 || math.IsNaN(fraction) || math.IsInf(fraction, 0) || (!withReplacement && fraction > 1) {
		return r.sc.failed("Sample", fmt.Errorf("rdd: Sample fraction %v must be in [0, 1] without replacement, or >= 0 with replacement", fraction), r)
	}
	return r.narrow("Sample", r.samples, func(_ *TaskContext, p int, in block) (block, error) {
		rng := partitionRNG(seed, p)
		var idx []int
		for i := 0; i < in.Len(); i++ {
			if withReplacement {
				for k := poisson(rng, fraction); k > 0; k-- {
					idx = append(idx, i)
				}
			} else if rng.Float64() < fraction {
				idx = append(idx, i)
			}
		}
		return in.pick(idx)
	})
}

// poisson draws from a Poisson distribution with mean lambda.
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda > 30 {
		// Normal approximation, for large means.
		v := math.Round(lambda + math.Sqrt(lambda)*rng.NormFloat64())
		return max(0, int(v))
	}
	l := math.Exp(-lambda)
	k, prod := 0, rng.Float64()
	for prod > l {
		k++
		prod *= rng.Float64()
	}
	return k
}

// RandomSplit splits the RDD randomly into len(weights) RDDs whose sizes
// are about proportional to weights. Every element lands in exactly one
// of them, decided by a draw that depends only on seed and the partition,
// so the splits are disjoint and complete however they are computed (the
// parent is computed once per split unless it is cached). RDDs of samples
// stay samples.
func (r *RDD) RandomSplit(weights []float64, seed int64) []*RDD {
	sum := 0.0
	for _, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			sum = math.NaN()
			break
		}
		sum += w
	}
	if len(weights) == 0 || !(sum > 0) {
		err := fmt.Errorf("rdd: RandomSplit weights %v must be non-negative with a positive sum", weights)
		return []*RDD{r.sc.failed("RandomSplit", err, r)}
	}
	bounds := make([]float64, len(weights)+1)
	for i, w := range weights {
		bounds[i+1] = bounds[i] + w/sum
	}
	bounds[len(weights)] = 1
	out := make([]*RDD, len(weights))
	for s := range weights {
		lo, hi := bounds[s], bounds[s+1]
		out[s] = r.narrow("RandomSplit", r.samples, func(_ *TaskContext, p int, in block) (block, error) {
			rng := partitionRNG(seed, p)
			var idx []int
			for i := 0; i < in.Len(); i++ {
				if x := rng.Float64(); x >= lo && x < hi {
					idx = append(idx, i)
				}
			}
			return in.pick(idx)
		})
	}
	return out
}

// Union returns the RDD holding r's partitions followed by those of each
// of others, without moving data. It is an RDD of samples when all of
// them are.
func (r *RDD) Union(others ...*RDD) *RDD {
	all := append([]*RDD{r}, others...)
	var refs []partRef
	samples := true
	for _, o := range all {
		if o == nil {
			return r.sc.failed("Union", fmt.Errorf("rdd: Union with a nil RDD"), r)
		}
		if o.sc != r.sc {
			return r.sc.failed("Union", fmt.Errorf("rdd: Union of %s and %s from different Contexts", r.label(), o.label()), r)
		}
		for p := 0; p < o.nparts; p++ {
			refs = append(refs, partRef{o, p})
		}
		samples = samples && o.samples
	}
	out := r.sc.newRDD("Union", len(refs), samples, all, func(tc *TaskContext, p int) (block, error) {
		return refs[p].r.iterator(tc, refs[p].p)
	})
	out.deps = func(p int) []partRef { return refs[p : p+1 : p+1] }
	return out
}

// Zip pairs the i-th element of every partition of r with the i-th
// element of the same partition of other, as Pair{Key, Value}. Both
// RDDs must have the same number of partitions and the same number of
// elements in each.
func (r *RDD) Zip(other *RDD) *RDD {
	if other == nil || other.sc != r.sc {
		return r.sc.failed("Zip", fmt.Errorf("rdd: Zip needs an RDD of the same Context"), r)
	}
	if other.nparts != r.nparts {
		return r.sc.failed("Zip", fmt.Errorf("rdd: cannot Zip %s with %d partitions and %s with %d: the partition counts must be equal",
			r.label(), r.nparts, other.label(), other.nparts), r, other)
	}
	return r.sc.newRDD("Zip", r.nparts, false, []*RDD{r, other}, func(tc *TaskContext, p int) (block, error) {
		a, err := r.iterator(tc, p)
		if err != nil {
			return block{}, err
		}
		b, err := other.iterator(tc, p)
		if err != nil {
			return block{}, err
		}
		if a.Len() != b.Len() {
			return block{}, fmt.Errorf("rdd: cannot Zip partition %d: %s has %d elements there and %s has %d; Zip needs equal counts in every partition",
				p, r.label(), a.Len(), other.label(), b.Len())
		}
		out := make([]any, a.Len())
		for i := range out {
			out[i] = Pair{Key: a.at(i), Value: b.at(i)}
		}
		return block{Elems: out}, nil
	})
}
