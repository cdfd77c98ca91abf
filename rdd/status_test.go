package rdd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sparknet-go/sparknet/data"
)

// fixedSize reports its own size.
type fixedSize struct{ n int64 }

func (f fixedSize) SizeBytes() int64 { return f.n }

func TestEstimateSize(t *testing.T) {
	type node struct {
		next *node
		data []float32
	}
	loop := &node{data: make([]float32, 100)}
	loop.next = loop
	shared := make([]float64, 1000)
	big := make([]any, 10000)
	for i := range big {
		big[i] = fmt.Sprintf("%08d", i)
	}
	for _, tc := range []struct {
		name   string
		v      any
		lo, hi int64
	}{
		{"nil", nil, 0, 0},
		{"int", 7, 8, 8},
		{"floats", make([]float32, 1000), 4000, 4100},
		{"string", strings.Repeat("x", 500), 500, 520},
		{"cycle counted once", loop, 400, 500},
		{"shared backing counted once", [][]float64{shared, shared}, 8000, 8100},
		{"map", map[string][]byte{"a": make([]byte, 100), "b": make([]byte, 100)}, 200, 300},
		{"sampled boxed strings", big, 10000 * 8, 10000 * 50},
		{"sizer", fixedSize{12345}, 12345, 12345},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimateSize(tc.v); got < tc.lo || got > tc.hi {
				t.Errorf("estimateSize = %d, want %d to %d", got, tc.lo, tc.hi)
			}
		})
	}
}

func TestStoreBytes(t *testing.T) {
	var s Store
	s.Set("a", make([]float32, 256))
	if _, err := s.GetOrCreate("b", func() (any, error) { return fixedSize{100}, nil }); err != nil {
		t.Fatal(err)
	}
	if got := s.Bytes(); got < 1124 || got > 1200 {
		t.Errorf("Bytes = %d, want about 1124", got)
	}
	s.Delete("a")
	if got := s.Bytes(); got != 100 {
		t.Errorf("after Delete, Bytes = %d, want 100", got)
	}
	s.Clear()
	if got := s.Bytes(); got != 0 {
		t.Errorf("after Clear, Bytes = %d", got)
	}
}

func TestStorageAndWorkerStatus(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	cached := sc.Range(0, 1000, 1, 4).Map(func(x any) any { return make([]float64, 10) }).SetName("vectors").Cache()
	sc.Range(0, 10, 1, 2).Count() // not persisted: not listed
	if st := sc.StorageStatus(); len(st) != 1 || st[0].CachedPartitions != 0 {
		t.Fatalf("before an action: %+v", st)
	}
	if _, err := cached.Count(); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.RunWorkers(context.Background(), func(tc *TaskContext) (any, error) {
		tc.Store().Set("state", make([]byte, 1<<20))
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	st := sc.StorageStatus()
	if len(st) != 1 {
		t.Fatalf("storage: %+v", st)
	}
	r := st[0]
	if r.ID != cached.ID() || r.Name != cached.label() || r.Partitions != 4 || r.CachedPartitions != 4 || r.Level != MemoryOnly || len(r.Blocks) != 4 {
		t.Errorf("storage of the cached RDD: %+v", r)
	}
	// 1000 slices of 10 float64: at least 80 KB.
	if r.Bytes < 80000 || r.Bytes > 200000 {
		t.Errorf("cached bytes %d, want about 100000", r.Bytes)
	}
	ws := sc.WorkerStatus()
	if len(ws) != 2 {
		t.Fatalf("workers: %+v", ws)
	}
	var total int64
	for w, s := range ws {
		if s.Worker != w || s.CachedPartitions != 2 || s.StoreKeys != 1 || s.StoreBytes < 1<<20 {
			t.Errorf("worker %d: %+v", w, s)
		}
		total += s.CachedBytes
	}
	if total != r.Bytes {
		t.Errorf("workers hold %d bytes, the RDD %d", total, r.Bytes)
	}
	cached.Unpersist()
	if st := sc.StorageStatus(); len(st) != 0 {
		t.Errorf("after Unpersist: %+v", st)
	}
	if ws := sc.WorkerStatus(); ws[0].CachedPartitions != 0 {
		t.Errorf("after Unpersist, worker 0 holds %+v", ws[0])
	}
}

// TestSPMDRemoteEvents checks that every rank sees the task attempts of
// the others, failures included, and their workers' status.
func TestSPMDRemoteEvents(t *testing.T) {
	got := onRanks(t, 3, func(sc *Context) string {
		defer sc.Close()
		var mu sync.Mutex
		var lines []string
		stop := sc.Subscribe(func(e Event) {
			if e.Kind != TaskEnd {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			status := "ok"
			if e.Err != nil {
				status = e.Err.Error()
			}
			lines = append(lines, fmt.Sprintf("p%d w%d a%d remote=%v %s %s", e.Partition, e.Worker, e.Attempt, e.Remote, e.Action, status))
		})
		defer stop()
		r := sc.Range(0, 60, 1, 6).Cache()
		if _, err := r.Count(); err != nil {
			return err.Error()
		}
		failed := false
		_, err := sc.Range(0, 6, 1, 6).MapPartitions(func(it []any) []any {
			if it[0].(int) == 4 && !failed {
				failed = true
				panic("once")
			}
			return it
		}).Collect()
		if err != nil {
			return err.Error()
		}
		mu.Lock()
		sort.Strings(lines)
		out := strings.Join(lines, "\n")
		mu.Unlock()
		for _, ws := range sc.WorkerStatus() {
			out += fmt.Sprintf("\nworker %d rank %d cached %d", ws.Worker, ws.Rank, ws.CachedPartitions)
		}
		return out
	})
	for r, s := range got {
		lines := strings.Split(s, "\n")
		// 6 tasks of the count, 6 of the collect, 1 failed attempt, 3 workers.
		if len(lines) != 16 {
			t.Fatalf("rank %d: %d lines:\n%s", r, len(lines), s)
		}
		for _, l := range lines {
			var p, w, a int
			var remote bool
			if strings.HasPrefix(l, "worker") {
				if !strings.HasSuffix(l, "cached 2") {
					t.Errorf("rank %d: %s", r, l)
				}
				continue
			}
			if _, err := fmt.Sscanf(l, "p%d w%d a%d remote=%t", &p, &w, &a, &remote); err != nil {
				t.Fatalf("rank %d: %q: %v", r, l, err)
			}
			if w != p%3 || remote != (w != r) {
				t.Errorf("rank %d: %s", r, l)
			}
			if p == 4 && a == 1 && strings.Contains(l, "Collect") && !strings.Contains(l, "once") {
				t.Errorf("rank %d: the failed attempt reads %s", r, l)
			}
		}
	}
}

// A store value that refers to a cached partition does not count the
// partition's memory again: the cache counts it.
func TestStoreExcludesCachedPartitions(t *testing.T) {
	sc := newTestContext(t, "local[1]")
	s := &data.Samples{N: 1000, C: 1, H: 10, W: 10, Pixels: make([]uint8, 100000), Labels: make([]float32, 1000)}
	r := sc.ParallelizeSamples(s, 1).Cache()
	type holder struct {
		samples *data.Samples
		own     []float32
	}
	if _, err := r.RunPartitions(context.Background(), func(tc *TaskContext) (any, error) {
		tc.Store().Set("holder", &holder{samples: tc.Samples(), own: make([]float32, 1000)})
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	ws := sc.WorkerStatus()[0]
	if ws.CachedBytes < 100000 || ws.StoreBytes < 4000 || ws.StoreBytes > 5000 {
		t.Errorf("cache %d bytes, store %d bytes; want about 104000 and 4000", ws.CachedBytes, ws.StoreBytes)
	}
}
