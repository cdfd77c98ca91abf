package rdd

import (
	"fmt"
	"strings"
	"sync"
)

// RDD is a resilient distributed dataset: a list of elements split into
// partitions that live on the context's workers. Transformations (Map,
// Filter, ...) return new RDDs and compute nothing; they record lineage,
// from which any partition can be computed again. Actions (Count,
// Collect, ...) run jobs and return results with an error last.
//
// Elements are of type any. An RDD of samples (from ParallelizeSamples or
// a data source) holds its partitions as typed *data.Samples; its
// elements are data.Sample values, and Filter, Sample, RandomSplit,
// Union, Coalesce and Repartition keep it typed.
//
// A transformation given bad arguments returns an RDD whose actions fail
// with the error (see Err), so that calls chain.
type RDD struct {
	sc      *Context
	id      int
	op      string // the transformation or source that made it
	nparts  int
	parents []*RDD
	samples bool // every partition is a sample block
	compute func(tc *TaskContext, p int) (block, error)

	// stream, when set, computes partition p element by element, until
	// yield returns false, so that Take and First stop early.
	stream func(tc *TaskContext, p int, yield func(any) bool) error
	// deps lists the partitions of other RDDs that partition p reads
	// directly (not through a shuffle); nil means partition p of every
	// parent that is not read through a shuffle.
	deps func(p int) []partRef
	// shuffles are the shuffles this RDD reads, in parent order.
	shuffles []*shuffleDep
	// partitioner says which partition holds each key, for RDDs of
	// pairs partitioned by key; nil when unknown.
	partitioner Partitioner

	mu    sync.Mutex
	name  string
	level StorageLevel
	err   error
}

// newRDD registers an RDD made by op.
func (sc *Context) newRDD(op string, nparts int, samples bool, parents []*RDD, compute func(tc *TaskContext, p int) (block, error)) *RDD {
	return &RDD{sc: sc, id: int(sc.nextRDD.Add(1)), op: op, nparts: nparts, parents: parents, samples: samples, compute: compute}
}

// failed returns an RDD whose actions report err.
func (sc *Context) failed(op string, err error, parents ...*RDD) *RDD {
	r := sc.newRDD(op, 0, false, parents, func(*TaskContext, int) (block, error) { return block{}, err })
	r.err = err
	return r
}

// ID identifies the RDD within its Context.
func (r *RDD) ID() int { return r.id }

// Context returns the Context the RDD belongs to.
func (r *RDD) Context() *Context { return r.sc }

// NumPartitions is the number of partitions.
func (r *RDD) NumPartitions() int { return r.nparts }

// IsSamples reports whether the partitions hold typed samples.
func (r *RDD) IsSamples() bool { return r.samples }

// Name is the name given with SetName, or "".
func (r *RDD) Name() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.name
}

// SetName names the RDD for lineage and events, and returns it.
func (r *RDD) SetName(name string) *RDD {
	r.mu.Lock()
	r.name = name
	r.mu.Unlock()
	return r
}

// Err returns the error this RDD or its lineage was made with, which
// every action on it will return, or nil.
func (r *RDD) Err() error {
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return err
	}
	for _, p := range r.parents {
		if err := p.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (r *RDD) setErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// label is the RDD's short description, such as "Map[4]" or
// "train (MNIST)[1]".
func (r *RDD) label() string {
	if n := r.Name(); n != "" {
		return fmt.Sprintf("%s (%s)[%d]", n, r.op, r.id)
	}
	return fmt.Sprintf("%s[%d]", r.op, r.id)
}

func (r *RDD) String() string {
	if r.err != nil {
		return fmt.Sprintf("%s, failed: %v", r.label(), r.err)
	}
	return fmt.Sprintf("%s with %d partitions", r.label(), r.nparts)
}

// Lineage describes the RDD and its ancestors, one per line, in the
// manner of Spark's toDebugString: partition count, operation, ID, and
// whether partitions are cached; a shuffle starts a new indentation.
func (r *RDD) Lineage() string {
	var b strings.Builder
	var walk func(r *RDD, first, rest string)
	walk = func(r *RDD, first, rest string) {
		fmt.Fprintf(&b, "%s(%d) %s", first, r.nparts, r.label())
		if r.StorageLevel() != None {
			fmt.Fprintf(&b, " [%s, %d cached]", r.StorageLevel(), r.CachedPartitions())
		}
		b.WriteByte('\n')
		for _, p := range r.parents {
			if r.readsShuffleOf(p) {
				walk(p, rest+" +- ", rest+"    ")
			} else {
				walk(p, rest+" |  ", rest)
			}
		}
	}
	walk(r, "", "")
	return strings.TrimSuffix(b.String(), "\n")
}

// iterator returns partition p, from the cache when the RDD is persisted.
func (r *RDD) iterator(tc *TaskContext, p int) (block, error) {
	if r.StorageLevel() != None {
		return r.getOrCompute(tc, p)
	}
	return r.compute(tc, p)
}

// iterate calls yield with the elements of partition p in order, until
// it returns false. Chains of element-wise transformations compute only
// the elements yield asks for; a persisted RDD computes (and keeps) the
// whole partition.
func (r *RDD) iterate(tc *TaskContext, p int, yield func(any) bool) error {
	if r.stream == nil || r.StorageLevel() != None {
		b, err := r.iterator(tc, p)
		if err != nil {
			return err
		}
		for i := 0; i < b.Len(); i++ {
			if !yield(b.at(i)) {
				return nil
			}
		}
		return nil
	}
	return r.stream(tc, p, yield)
}

// partRef is partition p of RDD r.
type partRef struct {
	r *RDD
	p int
}

// narrowDeps lists the partitions of other RDDs that partition p reads
// directly.
func (r *RDD) narrowDeps(p int) []partRef {
	if r.deps != nil {
		return r.deps(p)
	}
	var out []partRef
	for _, q := range r.parents {
		if !r.readsShuffleOf(q) {
			out = append(out, partRef{q, p})
		}
	}
	return out
}

// readsShuffleOf reports whether r reads parent q through a shuffle.
func (r *RDD) readsShuffleOf(q *RDD) bool {
	for _, d := range r.shuffles {
		if d.parent == q {
			return true
		}
	}
	return false
}

// Partitioner returns the partitioner that places the RDD's pairs by key
// (after PartitionBy, ReduceByKey, SortByKey and other operations that
// shuffle by key, and MapValues and other operations that keep keys),
// or nil.
func (r *RDD) Partitioner() Partitioner { return r.partitioner }
