package rdd

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"weak"

	"github.com/sparknet-go/sparknet/data"
)

// testSamples returns n byte samples of 1×2×2 whose pixels and label
// encode the sample index.
func testSamples(t testing.TB, n int) *data.Samples {
	t.Helper()
	s, err := data.NewSamples(n, 1, 2, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for k := 0; k < 4; k++ {
			s.Pixels[i*4+k] = uint8(i + k)
		}
		s.Labels[i] = float32(i)
	}
	return s
}

// replica stands for per-worker state such as a net replica.
type replica struct {
	worker int
	inUse  atomic.Bool
	rounds int
}

// TestRunPartitions is the trainer's pattern: each round broadcasts a
// value, and every partition's task finds its samples, its worker's
// persistent replica and the broadcast.
func TestRunPartitions(t *testing.T) {
	const workers, parts, rounds = 2, 6, 3
	sc := newTestContext(t, fmt.Sprintf("local[%d]", workers))
	s := testSamples(t, 60)
	train := sc.ParallelizeSamples(s, parts).Cache()
	bc, err := sc.Broadcast([]float32{0})
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= rounds; round++ {
		if err := bc.Update([]float32{float32(round)}); err != nil {
			t.Fatal(err)
		}
		res, err := train.RunPartitions(context.Background(), func(tc *TaskContext) (any, error) {
			v, err := tc.Store().GetOrCreate("replica", func() (any, error) { return &replica{worker: tc.Worker()}, nil })
			if err != nil {
				return nil, err
			}
			rep := v.(*replica)
			if !rep.inUse.CompareAndSwap(false, true) {
				return nil, errors.New("replica used by two tasks at once")
			}
			defer rep.inUse.Store(false)
			if rep.worker != tc.Worker() || tc.Worker() != tc.Partition()%workers {
				return nil, fmt.Errorf("partition %d ran on worker %d with the replica of worker %d", tc.Partition(), tc.Worker(), rep.worker)
			}
			rep.rounds++
			samples := tc.Samples()
			if samples == nil || samples.N != 10 {
				return nil, fmt.Errorf("partition %d has samples %v", tc.Partition(), samples)
			}
			w := bc.Value().([]float32)[0]
			return []float32{w, samples.Labels[0], float32(rep.rounds)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for p, v := range res {
			got := v.([]float32)
			// Each worker holds 3 partitions, so its replica has run
			// 3*(round-1) + (p/workers + 1) tasks by now.
			want := []float32{float32(round), float32(p * 10), float32(3*(round-1) + p/workers + 1)}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d partition %d: %v, want %v", round, p, got, want)
			}
		}
	}
	// The samples a task sees are views of the source, not copies.
	res, _ := train.RunPartitions(nil, func(tc *TaskContext) (any, error) { return &tc.Samples().Pixels[0], nil })
	if res[1].(*uint8) != &s.Pixels[10*4] {
		t.Error("partition 1's samples are a copy")
	}
	ws, err := sc.RunWorkers(nil, func(tc *TaskContext) (any, error) { return tc.Store().Keys(), nil })
	if err != nil || !reflect.DeepEqual(ws, []any{[]string{"replica"}, []string{"replica"}}) {
		t.Errorf("RunWorkers = %v, %v", ws, err)
	}
	sc.ResetWorker(0)
	ws, _ = sc.RunWorkers(nil, func(tc *TaskContext) (any, error) { return tc.Store().Len(), nil })
	if !reflect.DeepEqual(ws, []any{0, 1}) {
		t.Errorf("store sizes after resetting worker 0: %v", ws)
	}
}

func TestRunPartitionsContext(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := sc.Range(0, 10, 1, 4).RunPartitions(ctx, func(tc *TaskContext) (any, error) { return nil, nil })
	if !errors.Is(err, ErrCanceled) {
		t.Errorf("canceled context: error %v", err)
	}
	_, err = sc.Range(0, 10, 1, 4).RunPartitions(nil, func(tc *TaskContext) (any, error) {
		if tc.Partition() == 2 {
			return nil, errInjected
		}
		return tc.Len(), nil
	})
	var te *TaskError
	if !errors.As(err, &te) || te.Partition != 2 || !errors.Is(err, errInjected) {
		t.Errorf("error %v, want a TaskError for partition 2", err)
	}
}

// TestBroadcastReleased replaces and destroys broadcast values and checks
// that the garbage collector can take the old ones.
func TestBroadcastReleased(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	r := sc.Range(0, 4, 1, 4)
	type weights struct{ w [1 << 16]float32 }
	bc, err := sc.Broadcast(&weights{})
	if err != nil {
		t.Fatal(err)
	}
	var old []weak.Pointer[weights]
	for round := 0; round < 5; round++ {
		w := &weights{}
		w.w[0] = float32(round)
		old = append(old, weak.Make(w))
		if err := bc.Update(w); err != nil {
			t.Fatal(err)
		}
		sum, err := r.Map(func(any) any { return float64(bc.Value().(*weights).w[0]) }).Reduce(func(a, b any) any { return a.(float64) + b.(float64) })
		if err != nil || sum != float64(4*round) {
			t.Fatalf("round %d: sum %v, %v", round, sum, err)
		}
	}
	bc.Destroy()
	runtime.GC()
	runtime.GC()
	for i, p := range old {
		if p.Value() != nil {
			t.Errorf("broadcast value of round %d still reachable", i)
		}
	}
	if err := bc.Update(1); err == nil {
		t.Error("Update after Destroy: no error")
	}
}

func TestAccumulator(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	odd := sc.Accumulator("odd")
	seen := sc.Accumulator("seen")
	n, err := sc.Range(0, 101, 1, 7).Filter(func(x any) bool {
		seen.Add(1)
		if x.(int)%2 == 1 {
			odd.Add(1)
			return true
		}
		return false
	}).Count()
	if err != nil || n != 50 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if odd.Value() != 50 || seen.Value() != 101 {
		t.Errorf("odd %v, seen %v", odd.Value(), seen.Value())
	}
	odd.Reset()
	if odd.Value() != 0 || odd.Name() != "odd" {
		t.Errorf("after Reset: %v", odd)
	}
}

func TestStore(t *testing.T) {
	var s Store
	if s.Get("x") != nil || s.Len() != 0 {
		t.Error("zero Store is not empty")
	}
	s.Set("b", 1)
	s.Set("a", 2)
	if v, ok := s.Lookup("a"); !ok || v != 2 {
		t.Errorf("Lookup(a) = %v, %v", v, ok)
	}
	calls := 0
	create := func() (any, error) { calls++; return calls, nil }
	v1, _ := s.GetOrCreate("c", create)
	v2, _ := s.GetOrCreate("c", create)
	if v1 != 1 || v2 != 1 || calls != 1 {
		t.Errorf("GetOrCreate gave %v, %v after %d calls", v1, v2, calls)
	}
	if _, err := s.GetOrCreate("d", func() (any, error) { return nil, errInjected }); !errors.Is(err, errInjected) {
		t.Errorf("GetOrCreate error %v", err)
	}
	if _, ok := s.Lookup("d"); ok {
		t.Error("failed GetOrCreate stored a value")
	}
	if got := s.Keys(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("Keys = %v", got)
	}
	s.Delete("a")
	s.Clear()
	if s.Len() != 0 {
		t.Errorf("%d keys after Clear", s.Len())
	}
}
