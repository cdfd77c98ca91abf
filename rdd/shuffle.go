package rdd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"time"
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
	out := r.sc.newRDD("Coalesce", n, r.samples, []*RDD{r}, func(tc *TaskContext, p int) (block, error) {
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
	out.deps = func(p int) []partRef {
		lo, hi := partitionBounds(parts, n, p)
		refs := make([]partRef, 0, hi-lo)
		for q := lo; q < hi; q++ {
			refs = append(refs, partRef{r, q})
		}
		return refs
	}
	return out
}

// emptyBlock is a partition without elements.
func (r *RDD) emptyBlock() block { return block{Elems: []any{}} }

// Repartition returns an RDD with n partitions, reshuffling the elements:
// each parent partition deals its elements round-robin to the new
// partitions, starting at a place drawn from its index, so the result is
// balanced and the same on every run. RDDs of samples stay samples.
func (r *RDD) Repartition(n int) *RDD {
	if n <= 0 {
		return r.sc.failed("Repartition", fmt.Errorf("rdd: Repartition to %d partitions: need at least 1", n), r)
	}
	d := r.sc.newShuffleDep(r, n, func(_ *TaskContext, p int, in block) ([]block, error) {
		idx := make([][]int, n)
		start := partitionRNG(int64(p), p).IntN(n)
		for i := 0; i < in.Len(); i++ {
			k := (start + i) % n
			idx[k] = append(idx[k], i)
		}
		buckets := make([]block, n)
		for k := range buckets {
			var err error
			if buckets[k], err = in.pick(idx[k]); err != nil {
				return nil, err
			}
		}
		return buckets, nil
	})
	return r.sc.newShuffled("Repartition", n, r.samples, []*shuffleDep{d}, nil, func(tc *TaskContext, q int, in [][]block) (block, error) {
		if len(in[0]) == 0 {
			return r.emptyBlock(), nil
		}
		return concatBlocks(in[0])
	})
}

// A shuffle moves the elements of every partition of its parent (the map
// side) to the partitions of the RDD that reads it (the reduce side). Its
// map stage runs before the first stage that reads it: every map task
// splits its partition into one bucket per reduce partition and keeps
// them on its worker (in memory, or in a spill file beyond
// Options.ShuffleMemory). A reduce task reads its bucket of every map
// output, in map partition order, so its input is the same whichever
// workers ran the map tasks. Under an SPMD engine the ranks then exchange
// the buckets each one's tasks read (an all-to-all exchange on the
// communicator); no process holds the whole shuffle. Map outputs stay
// until the RDD that reads them is garbage; a lost one (a reset worker)
// is computed again from lineage, and the reduce tasks that missed it
// run again, as in Spark.

// shuffleDep is the map side of a shuffle: every partition of parent
// split into n buckets by write.
type shuffleDep struct {
	id     int
	parent *RDD
	n      int
	write  func(tc *TaskContext, p int, in block) ([]block, error)
}

// maxStageRounds is how many times a stage runs again after losing
// shuffle input before its job fails.
const maxStageRounds = 4

func (sc *Context) newShuffleDep(parent *RDD, n int, write func(tc *TaskContext, p int, in block) ([]block, error)) *shuffleDep {
	return &shuffleDep{id: int(sc.nextShuffle.Add(1)), parent: parent, n: n, write: write}
}

// newShuffled returns the RDD of n partitions that reads deps (each with
// n buckets) and also reads partition q of each of narrow directly:
// partition q is reduce(in) with in[i] the buckets q of deps[i], in map
// partition order, followed by partition q of each of narrow.
func (sc *Context) newShuffled(op string, n int, samples bool, deps []*shuffleDep, narrow []*RDD, reduce func(tc *TaskContext, q int, in [][]block) (block, error)) *RDD {
	var parents []*RDD
	for _, d := range deps {
		parents = append(parents, d.parent)
	}
	parents = append(parents, narrow...)
	out := sc.newRDD(op, n, samples, parents, func(tc *TaskContext, q int) (block, error) {
		in := make([][]block, 0, len(deps)+len(narrow))
		for _, d := range deps {
			bs, err := sc.readShuffle(tc, d, q)
			if err != nil {
				return block{}, err
			}
			in = append(in, bs)
		}
		for _, r := range narrow {
			b, err := r.iterator(tc, q)
			if err != nil {
				return block{}, err
			}
			in = append(in, []block{b})
		}
		return reduce(tc, q, in)
	})
	out.shuffles = deps
	if len(narrow) > 0 {
		out.deps = func(q int) []partRef {
			refs := make([]partRef, len(narrow))
			for i, r := range narrow {
				refs[i] = partRef{r, q}
			}
			return refs
		}
	}
	// The map outputs last as long as the RDD that reads them.
	store := sc.shuffles
	for _, d := range deps {
		runtime.AddCleanup(out, func(id int) { store.removeShuffle(id) }, d.id)
	}
	return out
}

// readShuffle returns bucket q of every map output of d, in map order.
func (sc *Context) readShuffle(tc *TaskContext, d *shuffleDep, q int) ([]block, error) {
	out := make([]block, d.parent.nparts)
	for m := range out {
		var b block
		var ok bool
		var err error
		if sc.spmd == nil || sc.engine.Owns(sc.workerOf(m)) {
			b, ok, err = sc.shuffles.get(d.id, m, q)
		} else {
			b, ok, err = sc.shuffles.getFetched(tc.info.Job, bucketKey{d.id, m, q})
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &fetchFailed{Shuffle: d.id, Map: m, Reduce: q}
		}
		out[m] = b
	}
	return out, nil
}

// runTasks runs fn as the tasks of one stage over partitions tasks of r,
// after running the map stages of the shuffles they read (and, under an
// SPMD engine, fetching their buckets). Tasks that find shuffle output
// lost run again once it is computed again.
func (sc *Context) runTasks(j *jobState, name string, r *RDD, tasks []int, fn func(tc *TaskContext) (any, error)) ([]any, error) {
	results := make([]any, len(tasks))
	pending := allPartitions(len(tasks)) // indices into tasks
	for round := 1; ; round++ {
		ts := make([]int, len(pending))
		for k, i := range pending {
			ts[k] = tasks[i]
		}
		if err := sc.prepareStage(j, r, ts); err != nil {
			return nil, err
		}
		res, err := sc.runStage(j, name, ts, func(tc *TaskContext) (any, error) {
			v, err := fn(tc)
			var ff *fetchFailed
			if err != nil && errors.As(err, &ff) {
				return shuffleLost{Shuffle: ff.Shuffle}, nil
			}
			return v, err
		})
		if err != nil {
			return nil, err
		}
		var lost []int
		for k, v := range res {
			if _, ok := v.(shuffleLost); ok {
				lost = append(lost, pending[k])
				continue
			}
			results[pending[k]] = v
		}
		if len(lost) == 0 {
			return results, nil
		}
		if round == maxStageRounds {
			return nil, fmt.Errorf("%w: %s lost its shuffle input %d times", errShuffleLost, name, round)
		}
		pending = lost
	}
}

// prepareStage runs what the tasks of r need first: the map stages of
// the shuffles that they read (through narrow dependencies, stopping at
// cached partitions) whose output is missing, and under an SPMD engine
// the exchange of their buckets.
func (sc *Context) prepareStage(j *jobState, r *RDD, tasks []int) error {
	deps := map[int]*shuffleDep{}
	r.collectShuffles(deps, map[int]bool{})
	if len(deps) == 0 {
		return nil // the same on every rank: they have the same lineage
	}
	needs := map[int][]int{} // shuffle → reduce partitions read here
	seen := map[partRef]bool{}
	var visit func(x *RDD, p int)
	visit = func(x *RDD, p int) {
		ref := partRef{x, p}
		if seen[ref] {
			return
		}
		seen[ref] = true
		if x.isCached(p) {
			return
		}
		for _, d := range x.shuffles {
			needs[d.id] = append(needs[d.id], p)
		}
		for _, q := range x.narrowDeps(p) {
			visit(q.r, q.p)
		}
	}
	for _, t := range tasks {
		visit(r, t)
	}
	ids := make([]int, 0, len(needs))
	for id := range needs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	if sc.spmd != nil {
		// The ranks read different partitions (and cache different
		// ones): every rank takes part in every shuffle any rank reads.
		all, err := sc.gatherInts(fmt.Sprintf("job %d (%s): shuffles read by %s", j.id, j.action, r.label()), ids)
		if err != nil {
			return err
		}
		ids = union(all)
	}
	for _, id := range ids {
		d := deps[id]
		if d == nil {
			return fmt.Errorf("rdd: shuffle %d is not in the lineage of %s on this rank (the ranks' lineages differ)", id, r.label())
		}
		if err := sc.ensureMapOutputs(j, d); err != nil {
			return err
		}
		if sc.spmd != nil {
			if err := sc.fetch(j, d, needs[id]); err != nil {
				return err
			}
		}
	}
	return nil
}

// collectShuffles finds every shuffle in r's lineage.
func (r *RDD) collectShuffles(deps map[int]*shuffleDep, seen map[int]bool) {
	if seen[r.id] {
		return
	}
	seen[r.id] = true
	for _, d := range r.shuffles {
		deps[d.id] = d
	}
	for _, p := range r.parents {
		p.collectShuffles(deps, seen)
	}
}

// isCached reports whether partition p is in the cache of a worker of
// this process.
func (r *RDD) isCached(p int) bool {
	if r.StorageLevel() == None {
		return false
	}
	w := r.sc.workers[r.sc.workerOf(p)]
	if w == nil {
		return false
	}
	w.mu.Lock()
	e := w.cache[cacheKey{r.id, p}]
	w.mu.Unlock()
	if e == nil {
		return false
	}
	select {
	case <-e.done:
		return e.err == nil
	default:
		return false
	}
}

// ensureMapOutputs runs the map tasks of d whose output is missing.
func (sc *Context) ensureMapOutputs(j *jobState, d *shuffleDep) error {
	var missing []int
	for m := 0; m < d.parent.nparts; m++ {
		if sc.engine.Owns(sc.workerOf(m)) && !sc.shuffles.has(d.id, m) {
			missing = append(missing, m)
		}
	}
	if sc.spmd != nil {
		all, err := sc.gatherInts(fmt.Sprintf("job %d (%s): missing map outputs of shuffle %d", j.id, j.action, d.id), missing)
		if err != nil {
			return err
		}
		missing = union(all)
	}
	if len(missing) == 0 {
		return nil
	}
	start := time.Now()
	name := fmt.Sprintf("shuffle %d of %s", d.id, d.parent.label())
	res, err := sc.runTasks(j, name, d.parent, missing, func(tc *TaskContext) (any, error) {
		p := tc.info.Partition
		in, err := d.parent.iterator(tc, p)
		if err != nil {
			return nil, err
		}
		buckets, err := d.write(tc, p, in)
		if err != nil {
			return nil, err
		}
		if len(buckets) != d.n {
			return nil, fmt.Errorf("rdd: shuffle %d: partition %d wrote %d buckets, want %d", d.id, p, len(buckets), d.n)
		}
		var remote func(q int) bool
		if sc.spmd != nil {
			remote = func(q int) bool { return !sc.engine.Owns(sc.workerOf(q)) }
		}
		return sc.shuffles.put(d.id, p, tc.info.Worker, buckets, remote)
	})
	if err != nil {
		return err
	}
	e := Event{Kind: ShuffleWritten, Job: j.id, Action: j.action, Shuffle: d.id, StageName: name, NumTasks: len(missing), Duration: time.Since(start)}
	for _, v := range res {
		st, ok := v.(mapStatus)
		if !ok {
			return fmt.Errorf("rdd: shuffle %d: a map task returned %T", d.id, v)
		}
		e.Records += st.Records
		e.Bytes += st.Bytes
		e.Spilled += st.Spilled
	}
	sc.events.emit(e)
	return nil
}

// fetch exchanges the buckets of d between the ranks of an SPMD job:
// every rank asks for bucket q of the map outputs of other ranks for
// each q in needs, and sends those asked of it.
func (sc *Context) fetch(j *jobState, d *shuffleDep, needs []int) error {
	start := time.Now()
	me, size := sc.Rank(), sc.Workers()
	var want []int
	for _, q := range slices.Compact(slices.Sorted(slices.Values(needs))) {
		for m := 0; m < d.parent.nparts; m++ {
			if m%size != me && !sc.shuffles.hasFetched(j.id, bucketKey{d.id, m, q}) {
				want = append(want, q)
				break
			}
		}
	}
	asks, err := sc.gatherInts(fmt.Sprintf("job %d (%s): buckets asked of shuffle %d", j.id, j.action, d.id), want)
	if err != nil {
		return err
	}
	send := make([][]byte, size)
	var sent int64
	for r, qs := range asks {
		if r == me || len(qs) == 0 {
			continue
		}
		var buf []byte
		for _, q := range qs {
			for m := me; m < d.parent.nparts; m += size {
				enc, err := sc.shuffles.encoded(d.id, m, q)
				if err != nil {
					return sc.spmd.Comm().(*checkedComm).abort(fmt.Sprintf("rank %d: shuffle %d: sending the output of partition %d for partition %d to rank %d: %v", me, d.id, m, q, r, err))
				}
				if enc == nil {
					continue // lost: the reader will see it missing
				}
				buf = binary.AppendUvarint(buf, uint64(m))
				buf = binary.AppendUvarint(buf, uint64(q))
				buf = binary.AppendUvarint(buf, uint64(len(enc)))
				buf = append(buf, enc...)
			}
		}
		send[r] = buf
		sent += int64(len(buf))
	}
	recv, err := sc.spmd.exchange(fmt.Sprintf("job %d (%s): buckets of shuffle %d", j.id, j.action, d.id), send)
	if err != nil {
		return err
	}
	var got int64
	for r, b := range recv {
		got += int64(len(b))
		rd := bytes.NewReader(b)
		for rd.Len() > 0 {
			m, err1 := binary.ReadUvarint(rd)
			q, err2 := binary.ReadUvarint(rd)
			n, err3 := binary.ReadUvarint(rd)
			if err := errors.Join(err1, err2, err3); err != nil || n > uint64(rd.Len()) || m >= uint64(d.parent.nparts) || q >= uint64(d.n) {
				return sc.spmd.Comm().(*checkedComm).abort(fmt.Sprintf("rank %d: shuffle %d: corrupt buckets from rank %d", me, d.id, r))
			}
			enc := make([]byte, n)
			rd.Read(enc)
			if err := sc.shuffles.putFetched(j.id, bucketKey{d.id, int(m), int(q)}, enc); err != nil {
				return err
			}
		}
	}
	sc.events.emit(Event{Kind: ShuffleFetched, Job: j.id, Action: j.action, Shuffle: d.id, StageName: d.parent.label(),
		Bytes: got, Records: int64(len(want)), Sent: sent, Duration: time.Since(start)})
	return nil
}

// gatherInts gathers a list of ints from every rank.
func (sc *Context) gatherInts(what string, xs []int) ([][]int, error) {
	var buf []byte
	for _, x := range xs {
		buf = binary.AppendUvarint(buf, uint64(x))
	}
	all, err := sc.spmd.gather(what, buf)
	if err != nil {
		return nil, err
	}
	out := make([][]int, len(all))
	for r, b := range all {
		for len(b) > 0 {
			v, k := binary.Uvarint(b)
			if k <= 0 {
				return nil, sc.spmd.Comm().(*checkedComm).abort(fmt.Sprintf("rank %d: %s: corrupt list from rank %d", sc.Rank(), what, r))
			}
			out[r] = append(out[r], int(v))
			b = b[k:]
		}
	}
	return out, nil
}

// union returns the sorted distinct ints of all lists.
func union(lists [][]int) []int {
	var out []int
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
