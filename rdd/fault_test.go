package rdd

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// errInjected is the fault tests inject.
var errInjected = errors.New("injected fault")

func TestRetries(t *testing.T) {
	tests := []struct {
		name        string
		maxAttempts int
		failFirst   int // attempts of partition 2 that fail
		wantErr     bool
	}{
		{"recovers after 3 failures", 0, 3, false},
		{"fails after 4", 0, 4, true},
		{"one attempt", 1, 1, true},
		{"two attempts", 2, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var attempts []int
			sc := newTestContextWith(t, Options{Master: "local[2]", MaxAttempts: tc.maxAttempts, FailTask: func(ti TaskInfo) error {
				if ti.Partition != 2 {
					return nil
				}
				mu.Lock()
				attempts = append(attempts, ti.Attempt)
				mu.Unlock()
				if ti.Attempt <= tc.failFirst {
					return fmt.Errorf("%w on attempt %d", errInjected, ti.Attempt)
				}
				return nil
			}})
			n, err := sc.Range(0, 40, 1, 4).Map(func(x any) any { return x }).Count()
			max := tc.maxAttempts
			if max == 0 {
				max = DefaultMaxAttempts
			}
			if !tc.wantErr {
				if err != nil || n != 40 {
					t.Fatalf("Count = %d, %v", n, err)
				}
				if want := ints(tc.failFirst + 2)[1:]; !reflect.DeepEqual(attempts, want) {
					t.Errorf("attempts %v, want %v", attempts, want)
				}
				return
			}
			var te *TaskError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *TaskError", err)
			}
			if te.Partition != 2 || te.Attempts != max || !errors.Is(err, errInjected) || te.Action != "Count" {
				t.Errorf("error %+v", te)
			}
			after := fmt.Sprintf("after %d attempts", max)
			if max == 1 {
				after = "after 1 attempt:"
			}
			for _, want := range []string{"partition 2", after, "injected fault on attempt"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestCallbackPanics(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	boom := func(x any) bool {
		if x.(int) == 13 {
			panic("unlucky")
		}
		return true
	}
	r := sc.Range(0, 20, 1, 2) // 13 is element 3 of partition 1
	tests := []struct {
		name string
		run  func() error
		want []string
	}{
		{"Filter", func() error { _, err := r.Filter(boom).Count(); return err }, []string{"Filter function panicked on element 3 of partition 1: unlucky", "after 4 attempts"}},
		{"Map", func() error {
			_, err := r.Map(func(x any) any { return 10 / (x.(int) - 13) }).Collect()
			return err
		}, []string{"Map function panicked on element 3 of partition 1", "divide by zero"}},
		{"Foreach", func() error { return r.Foreach(func(x any) { boom(x) }) }, []string{"Foreach function panicked on element 3"}},
		{"Reduce in driver", func() error {
			_, err := r.Reduce(func(a, b any) any {
				if a.(int) > 40 && b.(int) > 40 {
					panic("combine")
				}
				return a.(int) + b.(int)
			})
			return err
		}, []string{"Reduce function panicked in the driver: combine"}},
		{"MapPartitions", func() error {
			_, err := r.MapPartitions(func(it []any) []any { return it[:100] }).Count()
			return err
		}, []string{"MapPartitions function panicked in partition 0", "slice bounds"}},
		{"RunPartitions", func() error {
			_, err := r.RunPartitions(nil, func(tc *TaskContext) (any, error) { panic(fmt.Sprint("p", tc.Partition())) })
			return err
		}, []string{"RunPartitions function panicked in partition 0: p0"}},
		{"broadcast after Destroy", func() error {
			b, _ := sc.Broadcast(1)
			b.Destroy()
			_, err := r.Map(func(x any) any { return b.Value() }).Count()
			return err
		}, []string{"broadcast", "used after Destroy"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var pe *PanicError
			if !errors.As(err, &pe) || pe.Stack == "" {
				t.Errorf("error %v carries no *PanicError with a stack", err)
			}
		})
	}
}

// TestCacheRebuild drops cached partitions and checks that exactly those
// are recomputed from lineage, with the same contents.
func TestCacheRebuild(t *testing.T) {
	sc := newTestContext(t, "local[3]")
	var computed [6]atomic.Int32
	r := sc.Range(0, 60, 1, 6).MapPartitionsWithIndex(func(p int, it []any) []any {
		computed[p].Add(1)
		for i, x := range it {
			it[i] = x.(int) * 3
		}
		return it
	}).Cache()
	counts := func() []int32 {
		out := make([]int32, len(computed))
		for i := range computed {
			out[i] = computed[i].Load()
		}
		return out
	}
	want := collect(t, r)
	collect(t, r)
	if got := counts(); !reflect.DeepEqual(got, []int32{1, 1, 1, 1, 1, 1}) {
		t.Fatalf("computations %v after two jobs on a cached RDD", got)
	}
	if r.CachedPartitions() != 6 {
		t.Errorf("%d cached partitions", r.CachedPartitions())
	}

	sc.dropCachedPartition(r.ID(), 4)
	if got := collect(t, r); !reflect.DeepEqual(got, want) {
		t.Errorf("after losing partition 4: %v", got)
	}
	if got := counts(); !reflect.DeepEqual(got, []int32{1, 1, 1, 1, 2, 1}) {
		t.Errorf("computations %v after losing partition 4", got)
	}

	// Worker 1 holds partitions 1 and 4.
	if err := sc.ResetWorker(1); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Count(); n != 60 || err != nil {
		t.Errorf("Count = %d, %v", n, err)
	}
	if got := counts(); !reflect.DeepEqual(got, []int32{1, 2, 1, 1, 3, 1}) {
		t.Errorf("computations %v after resetting worker 1", got)
	}
	if err := sc.ResetWorker(3); err == nil {
		t.Error("ResetWorker(3) of 3 workers: no error")
	}
}

// TestCacheFailedCompute checks that a failed computation of a cached
// partition leaves no entry behind, and the retry fills the cache.
func TestCacheFailedCompute(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	var calls atomic.Int32
	r := sc.Range(0, 10, 1, 2).Map(func(x any) any {
		if x.(int) == 7 && calls.Add(1) <= 2 {
			panic("flaky")
		}
		return x
	}).Cache()
	if n, err := r.Count(); n != 10 || err != nil {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if r.CachedPartitions() != 2 {
		t.Errorf("%d partitions cached after the retries", r.CachedPartitions())
	}
	if calls.Load() != 3 {
		t.Errorf("element 7 mapped %d times, want 3", calls.Load())
	}
}

func TestCancel(t *testing.T) {
	sc := newTestContext(t, "local[2]")
	release := make(chan struct{})
	var once sync.Once
	stop := sc.Subscribe(func(e Event) {
		if e.Kind == TaskStart {
			once.Do(func() {
				go func() {
					sc.CancelJobs()
					close(release)
				}()
			})
		}
	})
	defer stop()
	var started atomic.Int32
	_, err := sc.Range(0, 100, 1, 20).Map(func(x any) any {
		started.Add(1)
		<-release
		return x
	}).Count()
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("error %v, want ErrCanceled", err)
	}
	// The two tasks running when the job was canceled finish their
	// partitions (5 elements each); no other task starts.
	if n := started.Load(); n > 10 {
		t.Errorf("%d elements mapped after cancellation", n)
	}
}

func TestClosed(t *testing.T) {
	sc, err := NewContext("local[2]")
	if err != nil {
		t.Fatal(err)
	}
	r := sc.Range(0, 10, 1, 2)
	sc.Close()
	if _, err := r.Count(); !errors.Is(err, ErrClosed) {
		t.Errorf("Count on a closed context: %v", err)
	}
	if err := sc.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestNoRetry checks that a task error marked with NoRetry fails its job
// on the attempt that returned it, and that the cause stays visible.
func TestNoRetry(t *testing.T) {
	sc := newTestContextWith(t, Options{Master: "local[2]"})
	errBad := errors.New("bad settings")
	var calls atomic.Int32
	_, err := sc.Range(0, 8, 1, 4).MapPartitionsWithIndex(func(p int, it []any) []any {
		if p == 1 {
			calls.Add(1)
			panic(NoRetry(errBad))
		}
		return it
	}).Count()
	var te *TaskError
	if !errors.As(err, &te) || te.Partition != 1 || te.Attempts != 1 || !errors.Is(err, errBad) {
		t.Fatalf("got %v, want a TaskError for partition 1 after 1 attempt wrapping the cause", err)
	}
	if !strings.Contains(err.Error(), "on attempt 1, not to be retried: ") || calls.Load() != 1 {
		t.Errorf("message %q after %d calls", err, calls.Load())
	}
	if NoRetry(nil) != nil {
		t.Error("NoRetry(nil) != nil")
	}
}
