package rdd

import "fmt"

// StorageLevel says whether an RDD keeps its computed partitions.
type StorageLevel int

const (
	// None recomputes partitions from lineage every time they are used.
	None StorageLevel = iota
	// MemoryOnly keeps computed partitions in their worker's memory.
	MemoryOnly
)

func (l StorageLevel) String() string {
	switch l {
	case None:
		return "None"
	case MemoryOnly:
		return "MemoryOnly"
	}
	return fmt.Sprintf("StorageLevel(%d)", int(l))
}

type cacheKey struct{ rdd, part int }

// cacheEntry is a cached partition, or one being computed: done is closed
// when b and err are set.
type cacheEntry struct {
	done  chan struct{}
	b     block
	err   error
	bytes int64 // estimated memory of b, once done
}

// Cache keeps the RDD's partitions in their workers' memory once
// computed; it is Persist(MemoryOnly).
func (r *RDD) Cache() *RDD { return r.Persist(MemoryOnly) }

// Persist sets the storage level and returns r. Like every
// transformation it computes nothing: partitions are kept as actions
// compute them.
func (r *RDD) Persist(level StorageLevel) *RDD {
	if level != None && level != MemoryOnly {
		r.setErr(fmt.Errorf("rdd: unknown storage level %d (known: None, MemoryOnly)", int(level)))
		return r
	}
	r.mu.Lock()
	r.level = level
	r.mu.Unlock()
	r.sc.notePersisted(r, level)
	if level == None {
		r.sc.dropCached(r.id)
	}
	return r
}

// Unpersist drops the cached partitions and stops caching; it returns r.
func (r *RDD) Unpersist() *RDD { return r.Persist(None) }

// StorageLevel is the RDD's storage level.
func (r *RDD) StorageLevel() StorageLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.level
}

// CachedPartitions counts the partitions of r held in this process's
// workers' memory.
func (r *RDD) CachedPartitions() int {
	n := 0
	for _, w := range r.sc.workers {
		if w == nil {
			continue
		}
		w.mu.Lock()
		for k, e := range w.cache {
			if k.rdd == r.id {
				select {
				case <-e.done:
					if e.err == nil {
						n++
					}
				default:
				}
			}
		}
		w.mu.Unlock()
	}
	return n
}

// dropCached removes every cached partition of RDD id.
func (sc *Context) dropCached(id int) {
	for _, w := range sc.workers {
		if w == nil {
			continue
		}
		w.mu.Lock()
		for k := range w.cache {
			if k.rdd == id {
				delete(w.cache, k)
			}
		}
		w.mu.Unlock()
	}
}

// dropCachedPartition removes one cached partition, as a lost worker
// would.
func (sc *Context) dropCachedPartition(id, p int) {
	if w := sc.workers[sc.workerOf(p)]; w != nil {
		w.mu.Lock()
		delete(w.cache, cacheKey{id, p})
		w.mu.Unlock()
	}
}

// getOrCompute returns partition p of a persisted RDD from its worker's
// cache, computing and storing it first if needed. Partitions owned by
// another process are computed and not kept.
func (r *RDD) getOrCompute(tc *TaskContext, p int) (block, error) {
	w := r.sc.workers[r.sc.workerOf(p)]
	if w == nil {
		return r.compute(tc, p)
	}
	key := cacheKey{r.id, p}
	for {
		w.mu.Lock()
		e, ok := w.cache[key]
		if !ok {
			e = &cacheEntry{done: make(chan struct{})}
			w.cache[key] = e
			w.mu.Unlock()
			r.fill(tc, p, w, key, e)
			return e.b, e.err
		}
		w.mu.Unlock()
		<-e.done
		if e.err == nil {
			return e.b, nil
		}
		// The computation failed and its entry is gone: try ourselves.
	}
}

// fill computes the partition of entry e, removing e again if that fails
// or panics, and wakes up whoever waits for it.
func (r *RDD) fill(tc *TaskContext, p int, w *worker, key cacheKey, e *cacheEntry) {
	defer func() {
		if v := recover(); v != nil {
			e.err = newPanicError("task", p, -1, v)
		}
		if e.err != nil || r.StorageLevel() == None {
			w.mu.Lock()
			if w.cache[key] == e {
				delete(w.cache, key)
			}
			w.mu.Unlock()
		}
		close(e.done)
	}()
	e.b, e.err = r.compute(tc, p)
	if e.err == nil {
		e.bytes = blockBytes(e.b)
	}
}
