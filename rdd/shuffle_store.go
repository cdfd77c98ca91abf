package rdd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"

	"github.com/sparknet-go/sparknet/data"
)

// DefaultShuffleMemory is how many bytes of shuffle output a process
// keeps in memory, unless Options says otherwise; beyond it, map outputs
// are written to files.
const DefaultShuffleMemory = 512 << 20

// shuffleStore keeps the shuffle output of this process: the buckets
// every map task wrote, kept by the worker that ran it (in memory, or in
// a spill file once the memory budget is used up), and, under an SPMD
// engine, the buckets fetched from other ranks for the running jobs.
type shuffleStore struct {
	budget int64  // bytes kept in memory before spilling
	dir    string // where spill files go ("" until the first spill)
	base   string // the folder to make dir in ("": os.TempDir())

	mu      sync.Mutex
	inMem   int64
	spilled int64 // bytes written to spill files, ever
	nfiles  int
	outputs map[int]map[int]*mapOutput    // shuffle → map partition → output
	fetched map[int]map[bucketKey]*stored // job → fetched buckets
}

// bucketKey names bucket reduce of map partition m of a shuffle.
type bucketKey struct{ shuffle, m, reduce int }

// mapOutput is what one map task wrote: a bucket per reduce partition.
type mapOutput struct {
	worker  int
	buckets []*stored
	file    string // the spill file holding the buckets, or ""
}

// stored is one bucket: a block in memory, its encoding in memory, or
// its encoding in a file.
type stored struct {
	blk  *block
	enc  []byte
	file string
	off  int64
	n    int64
	size int64 // the memory it takes, as counted against the budget
	recs int
}

func newShuffleStore(budget int64, base string) *shuffleStore {
	return &shuffleStore{budget: budget, base: base, outputs: map[int]map[int]*mapOutput{}, fetched: map[int]map[bucketKey]*stored{}}
}

// mapStatus is a map task's result: what it wrote.
type mapStatus struct {
	Records int64
	Bytes   int64 // in memory, estimated, or on disk
	Spilled int64 // bytes written to a spill file
}

// put keeps the buckets of map partition m of shuffle id, written by
// worker w, in memory or, beyond the budget, in a spill file. Buckets q
// for which remote(q) holds are encoded now (they go to other ranks), so
// that a value that cannot be encoded fails the map task.
func (s *shuffleStore) put(id, m, w int, buckets []block, remote func(q int) bool) (mapStatus, error) {
	var st mapStatus
	out := &mapOutput{worker: w, buckets: make([]*stored, len(buckets))}
	var total int64
	for i, b := range buckets {
		sb := &stored{blk: &buckets[i], recs: b.Len()}
		if remote != nil && remote(i) {
			enc, err := encodeBlock(b)
			if err != nil {
				return st, fmt.Errorf("rdd: shuffle %d: the output of partition %d for partition %d cannot be sent to other ranks: %w (register the types of its elements with rdd.Register)", id, m, i, err)
			}
			sb.blk, sb.enc = nil, enc
			sb.size = int64(len(enc))
		} else {
			sb.size = blockSize(b)
		}
		out.buckets[i] = sb
		total += sb.size
		st.Records += int64(b.Len())
	}
	s.mu.Lock()
	spill := s.inMem+total > s.budget
	if !spill {
		s.inMem += total
	}
	s.mu.Unlock()
	st.Bytes = total
	if spill {
		if err := s.spill(id, m, out); err != nil {
			return st, err
		}
		st.Bytes, st.Spilled = 0, 0
		for _, b := range out.buckets {
			st.Bytes += b.n
		}
		st.Spilled = st.Bytes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	byMap := s.outputs[id]
	if byMap == nil {
		byMap = map[int]*mapOutput{}
		s.outputs[id] = byMap
	}
	if old := byMap[m]; old != nil {
		s.release(old)
	}
	byMap[m] = out
	return st, nil
}

// spill writes the buckets of out to one file and drops them from
// memory.
func (s *shuffleStore) spill(id, m int, out *mapOutput) error {
	dir, err := s.spillDir()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.nfiles++
	path := filepath.Join(dir, fmt.Sprintf("shuffle-%d-map-%d-%d.data", id, m, s.nfiles))
	s.mu.Unlock()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("rdd: spilling shuffle %d: %w", id, err)
	}
	var off int64
	for _, b := range out.buckets {
		enc, err := b.enc, error(nil)
		if enc == nil {
			enc, err = encodeBlock(*b.blk)
		}
		if err == nil {
			_, err = f.Write(enc)
		}
		if err != nil {
			f.Close()
			os.Remove(path)
			return fmt.Errorf("rdd: spilling shuffle %d to %s: %w", id, path, err)
		}
		b.blk, b.enc, b.file, b.off, b.n, b.size = nil, nil, path, off, int64(len(enc)), 0
		off += int64(len(enc))
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("rdd: spilling shuffle %d to %s: %w", id, path, err)
	}
	out.file = path
	s.mu.Lock()
	s.spilled += off
	s.mu.Unlock()
	return nil
}

// spillDir makes the folder for spill files on first use.
func (s *shuffleStore) spillDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		return s.dir, nil
	}
	base := s.base
	if base == "" {
		base = os.TempDir()
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("rdd: making the shuffle spill folder: %w", err)
	}
	dir, err := os.MkdirTemp(base, "sparknet-shuffle-")
	if err != nil {
		return "", fmt.Errorf("rdd: making the shuffle spill folder: %w", err)
	}
	s.dir = dir
	return dir, nil
}

// release forgets what out holds in memory and removes its file; s.mu is
// held.
func (s *shuffleStore) release(out *mapOutput) {
	for _, b := range out.buckets {
		s.inMem -= b.size
	}
	if out.file != "" {
		os.Remove(out.file)
	}
}

// get returns bucket reduce of map partition m of shuffle id from this
// process's map outputs, or ok false when there is none.
func (s *shuffleStore) get(id, m, reduce int) (block, bool, error) {
	s.mu.Lock()
	out := s.outputs[id][m]
	s.mu.Unlock()
	if out == nil || reduce >= len(out.buckets) {
		return block{}, false, nil
	}
	b, err := out.buckets[reduce].load()
	return b, err == nil, err
}

// encoded returns the encoding of a bucket of this process's map outputs
// for another rank, or nil when there is none.
func (s *shuffleStore) encoded(id, m, reduce int) ([]byte, error) {
	s.mu.Lock()
	out := s.outputs[id][m]
	s.mu.Unlock()
	if out == nil || reduce >= len(out.buckets) {
		return nil, nil
	}
	b := out.buckets[reduce]
	if b.blk != nil {
		return encodeBlock(*b.blk)
	}
	return b.bytes()
}

// has reports whether map partition m of shuffle id has its output here.
func (s *shuffleStore) has(id, m int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outputs[id][m] != nil
}

// load returns the bucket's block, reading and decoding it if needed.
func (b *stored) load() (block, error) {
	if b.blk != nil {
		return *b.blk, nil
	}
	if b.enc == nil && b.file == "" {
		return block{Elems: []any{}}, nil
	}
	enc, err := b.bytes()
	if err != nil {
		return block{}, err
	}
	return decodeBlock(enc)
}

// bytes returns the bucket's encoding.
func (b *stored) bytes() ([]byte, error) {
	if b.enc != nil || b.file == "" {
		return b.enc, nil
	}
	f, err := os.Open(b.file)
	if err != nil {
		return nil, fmt.Errorf("rdd: reading shuffle output: %w", err)
	}
	defer f.Close()
	buf := make([]byte, b.n)
	if _, err := f.ReadAt(buf, b.off); err != nil {
		return nil, fmt.Errorf("rdd: reading shuffle output from %s: %w", b.file, err)
	}
	return buf, nil
}

// putFetched keeps a bucket fetched from another rank for job j, in
// memory or, beyond the budget, in a spill file.
func (s *shuffleStore) putFetched(j int, k bucketKey, enc []byte) error {
	st := &stored{enc: enc, size: int64(len(enc))}
	s.mu.Lock()
	spill := s.inMem+st.size > s.budget
	if !spill {
		s.inMem += st.size
	}
	s.mu.Unlock()
	if spill {
		dir, err := s.spillDir()
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.nfiles++
		path := filepath.Join(dir, fmt.Sprintf("fetched-%d-%d-%d-%d-%d.data", j, k.shuffle, k.m, k.reduce, s.nfiles))
		s.mu.Unlock()
		if err := os.WriteFile(path, enc, 0o644); err != nil {
			os.Remove(path)
			return fmt.Errorf("rdd: spilling fetched shuffle output: %w", err)
		}
		st.enc, st.size, st.file, st.n = nil, 0, path, int64(len(enc))
		s.mu.Lock()
		s.spilled += st.n
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.fetched[j]
	if m == nil {
		m = map[bucketKey]*stored{}
		s.fetched[j] = m
	}
	if old := m[k]; old != nil {
		s.inMem -= old.size
		if old.file != "" {
			os.Remove(old.file)
		}
	}
	m[k] = st
	return nil
}

// getFetched returns a bucket fetched for job j.
func (s *shuffleStore) getFetched(j int, k bucketKey) (block, bool, error) {
	s.mu.Lock()
	st := s.fetched[j][k]
	s.mu.Unlock()
	if st == nil {
		return block{}, false, nil
	}
	b, err := st.load()
	return b, err == nil, err
}

// hasFetched reports whether job j fetched the bucket.
func (s *shuffleStore) hasFetched(j int, k bucketKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetched[j][k] != nil
}

// dropJob forgets what job j fetched.
func (s *shuffleStore) dropJob(j int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.fetched[j] {
		s.inMem -= st.size
		if st.file != "" {
			os.Remove(st.file)
		}
	}
	delete(s.fetched, j)
}

// removeShuffle drops every output of shuffle id.
func (s *shuffleStore) removeShuffle(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, out := range s.outputs[id] {
		s.release(out)
	}
	delete(s.outputs, id)
}

// dropWorker drops the map outputs worker w wrote, as a lost worker
// loses them.
func (s *shuffleStore) dropWorker(w int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, byMap := range s.outputs {
		for m, out := range byMap {
			if out.worker == w {
				s.release(out)
				delete(byMap, m)
			}
		}
	}
}

// close drops everything and removes the spill folder.
func (s *shuffleStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outputs = map[int]map[int]*mapOutput{}
	s.fetched = map[int]map[bucketKey]*stored{}
	s.inMem = 0
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return err
}

// ShuffleStats describes the shuffle output this process holds.
type ShuffleStats struct {
	Shuffles    int   // shuffles with output here
	MapOutputs  int   // map outputs kept
	MemoryBytes int64 // bytes of shuffle data in memory (estimated)
	SpillFiles  int   // spill files now on disk
	Spilled     int64 // bytes written to spill files since the Context started
	SpillDir    string
}

// stats summarizes the store.
func (s *shuffleStore) stats() ShuffleStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ShuffleStats{MemoryBytes: s.inMem, Spilled: s.spilled, SpillDir: s.dir}
	files := map[string]bool{}
	for _, byMap := range s.outputs {
		if len(byMap) > 0 {
			st.Shuffles++
		}
		for _, out := range byMap {
			st.MapOutputs++
			if out.file != "" {
				files[out.file] = true
			}
		}
	}
	for _, m := range s.fetched {
		for _, b := range m {
			if b.file != "" {
				files[b.file] = true
			}
		}
	}
	st.SpillFiles = len(files)
	return st
}

// shuffleIDs lists the shuffles with output here, for tests.
func (s *shuffleStore) shuffleIDs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []int
	for id, byMap := range s.outputs {
		if len(byMap) > 0 {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids
}

// blockSize estimates the memory a block takes: samples exactly, other
// elements from a sample of up to 32 of them.
func blockSize(b block) int64 {
	if b.Samples != nil {
		return b.Samples.Bytes() + 64
	}
	n := len(b.Elems)
	if n == 0 {
		return 32
	}
	k := min(n, 32)
	var sum int64
	for i := 0; i < k; i++ {
		sum += valueSize(b.Elems[i*n/k], 0)
	}
	return 32 + 16*int64(n) + sum*int64(n)/int64(k)
}

// valueSize estimates the bytes a value takes beyond its interface
// header.
func valueSize(x any, depth int) int64 {
	switch x := x.(type) {
	case nil, bool, uint8, int8:
		return 0
	case int, int64, uint64, float64, int32, float32, uint32:
		return 8
	case string:
		return 16 + int64(len(x))
	case Pair:
		return 32 + valueSize(x.Key, depth+1) + valueSize(x.Value, depth+1)
	case []any:
		var s int64 = 24 + 16*int64(len(x))
		if depth < 3 {
			for i, y := range x {
				if i == 8 {
					s += (s - 24 - 16*int64(len(x))) * int64(len(x)-8) / 8
					break
				}
				s += valueSize(y, depth+1)
			}
		}
		return s
	case []byte:
		return 24 + int64(len(x))
	case []float32:
		return 24 + 4*int64(len(x))
	case []float64, []int:
		return 24 + 8*int64(reflect.ValueOf(x).Len())
	case data.Sample:
		return 64 + int64(len(x.Pixels)) + 4*int64(len(x.Floats))
	}
	v := reflect.ValueOf(x)
	return int64(v.Type().Size()) + 16
}

// fetchFailed reports shuffle output that a task needed and did not find
// (a lost worker's map output): the map task is run again and the task
// retried, as in Spark.
type fetchFailed struct {
	Shuffle int
	Map     int
	Reduce  int
}

func (e *fetchFailed) Error() string {
	return fmt.Sprintf("rdd: the output of map partition %d of shuffle %d for partition %d is lost", e.Map, e.Shuffle, e.Reduce)
}

// shuffleLost is the result of a task that found shuffle output missing:
// a result, not an error, so that the engine keeps the results of the
// other tasks and the stage reruns only the tasks that lost input.
type shuffleLost struct {
	Shuffle int
}

// errShuffleLost is what a stage that kept losing shuffle output reports.
var errShuffleLost = errors.New("rdd: shuffle output lost")
