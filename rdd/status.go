package rdd

import (
	"sort"
	"sync"
)

// WorkerStatus is what one worker holds: its cached partitions and its
// store, as Spark's executor list shows them.
type WorkerStatus struct {
	Worker int // the worker's index
	Rank   int // the process it runs in: its rank under an SPMD engine, else 0
	// CachedPartitions and CachedBytes count the partitions of persisted
	// RDDs the worker keeps, and their estimated memory.
	CachedPartitions int
	CachedBytes      int64
	// StoreKeys and StoreBytes count the values in the worker's Store
	// and their estimated memory (see Sizer).
	StoreKeys  int
	StoreBytes int64
	// Blocks lists the cached partitions, by RDD and partition.
	Blocks []BlockStatus
}

// BlockStatus is one cached partition.
type BlockStatus struct {
	RDD       int
	Partition int
	Worker    int
	Elements  int
	Bytes     int64
}

// RDDStatus describes a persisted RDD, as Spark's storage tab does.
type RDDStatus struct {
	ID         int
	Name       string // the RDD's label, such as "train (MNIST)[1]"
	Partitions int
	Level      StorageLevel
	// CachedPartitions and Bytes sum the cached partitions over all
	// workers; Blocks lists them by partition.
	CachedPartitions int
	Bytes            int64
	Blocks           []BlockStatus
}

// statusState is what a Context knows for status reports beyond its own
// workers: the persisted RDDs, and under an SPMD engine the other ranks'
// workers as of the last stage.
type statusState struct {
	mu        sync.Mutex
	persisted map[int]*RDD
	remote    map[int]WorkerStatus // by worker
}

// notePersisted records whether r is persisted, for StorageStatus.
func (sc *Context) notePersisted(r *RDD, level StorageLevel) {
	st := &sc.status
	st.mu.Lock()
	defer st.mu.Unlock()
	if level == None {
		delete(st.persisted, r.id)
		return
	}
	if st.persisted == nil {
		st.persisted = map[int]*RDD{}
	}
	st.persisted[r.id] = r
}

// localStatus measures worker w of this process.
func (sc *Context) localStatus(w *worker) WorkerStatus {
	ws := WorkerStatus{Worker: w.id, Rank: sc.Rank()}
	w.mu.Lock()
	for k, e := range w.cache {
		select {
		case <-e.done:
		default:
			continue // still being computed
		}
		if e.err != nil {
			continue
		}
		ws.CachedPartitions++
		ws.CachedBytes += e.bytes
		ws.Blocks = append(ws.Blocks, BlockStatus{RDD: k.rdd, Partition: k.part, Worker: w.id, Elements: e.b.Len(), Bytes: e.bytes})
	}
	w.mu.Unlock()
	sort.Slice(ws.Blocks, func(i, j int) bool {
		a, b := ws.Blocks[i], ws.Blocks[j]
		return a.RDD < b.RDD || a.RDD == b.RDD && a.Partition < b.Partition
	})
	ws.StoreKeys = w.store.Len()
	ws.StoreBytes = w.store.Bytes()
	return ws
}

// setRemoteStatus records another rank's report on its worker.
func (sc *Context) setRemoteStatus(ws WorkerStatus) {
	st := &sc.status
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.remote == nil {
		st.remote = map[int]WorkerStatus{}
	}
	st.remote[ws.Worker] = ws
}

// WorkerStatus reports every worker's cached partitions and store, in
// worker order. Under an SPMD engine the workers of other ranks are as
// they were at the end of the last stage (each rank sends its report with
// its task results); a worker not heard from yet reports zeros.
func (sc *Context) WorkerStatus() []WorkerStatus {
	out := make([]WorkerStatus, len(sc.workers))
	st := &sc.status
	for i, w := range sc.workers {
		if w != nil {
			out[i] = sc.localStatus(w)
			continue
		}
		st.mu.Lock()
		ws, ok := st.remote[i]
		st.mu.Unlock()
		if !ok {
			ws = WorkerStatus{Worker: i, Rank: i}
		}
		out[i] = ws
	}
	return out
}

// StorageStatus reports the persisted RDDs, by ID, with the partitions
// cached on every worker (see WorkerStatus for other ranks' workers).
func (sc *Context) StorageStatus() []RDDStatus {
	st := &sc.status
	st.mu.Lock()
	rdds := make([]*RDD, 0, len(st.persisted))
	for _, r := range st.persisted {
		rdds = append(rdds, r)
	}
	st.mu.Unlock()
	sort.Slice(rdds, func(i, j int) bool { return rdds[i].id < rdds[j].id })
	byRDD := map[int][]BlockStatus{}
	for _, ws := range sc.WorkerStatus() {
		for _, b := range ws.Blocks {
			byRDD[b.RDD] = append(byRDD[b.RDD], b)
		}
	}
	out := make([]RDDStatus, 0, len(rdds))
	for _, r := range rdds {
		rs := RDDStatus{ID: r.id, Name: r.label(), Partitions: r.nparts, Level: r.StorageLevel()}
		rs.Blocks = byRDD[r.id]
		sort.Slice(rs.Blocks, func(i, j int) bool { return rs.Blocks[i].Partition < rs.Blocks[j].Partition })
		for _, b := range rs.Blocks {
			rs.CachedPartitions++
			rs.Bytes += b.Bytes
		}
		out = append(out, rs)
	}
	return out
}
