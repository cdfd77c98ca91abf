package rdd

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// onComms runs f on every rank of NewLocalComms(n) at once and returns
// the errors, by rank. Ranks that do not all finish within a minute are
// a hang, which fails the test.
func onComms(t *testing.T, n int, f func(c Comm) error) []error {
	t.Helper()
	comms, err := NewLocalComms(n)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(c)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the ranks hung")
	}
	return errs
}

// floats is rank r's vector of length n.
func floats(r, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(r*n+i))) * float32(r+1)
	}
	return xs
}

// TestLocalCommAllreduceBits checks that the sum is the one in rank
// order, bit for bit, on every rank. (spmd_driver_test.go checks the
// other collectives with spmdtest.CheckComm.)
func TestLocalCommAllreduceBits(t *testing.T) {
	const n, m = 4, 1001
	errs := onComms(t, n, func(c Comm) error {
		xs := floats(c.Rank(), m)
		if err := c.AllreduceFloat32Sum(xs); err != nil {
			return err
		}
		want := floats(0, m)
		for r := 1; r < n; r++ {
			for i, x := range floats(r, m) {
				want[i] += x
			}
		}
		for i := range xs {
			if math.Float32bits(xs[i]) != math.Float32bits(want[i]) {
				return fmt.Errorf("[%d] = %v, want %v (the sum in rank order)", i, xs[i], want[i])
			}
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

func TestLocalCommErrors(t *testing.T) {
	if _, err := NewLocalComms(0); err == nil {
		t.Error("NewLocalComms(0): no error")
	}
	tests := []struct {
		name string
		f    func(c Comm) error
		want string // in every rank's error
	}{
		{
			name: "different calls",
			f: func(c Comm) error {
				if c.Rank() == 1 {
					return c.Barrier()
				}
				_, err := c.Allgather(nil)
				return err
			},
			want: "rank 0 Allgather(0), rank 1 Barrier(0), rank 2 Allgather(0)",
		},
		{
			name: "different lengths",
			f: func(c Comm) error {
				return c.AllreduceFloat32Sum(make([]float32, 2+c.Rank()%2))
			},
			want: "rank 1 AllreduceFloat32Sum(3)",
		},
		{
			name: "abort wakes the others",
			f: func(c Comm) error {
				if c.Rank() == 2 {
					time.Sleep(10 * time.Millisecond) // the others wait already
					c.Abort(3, "disk full")
					return errors.New("rank 2 aborted: " + ErrAborted.Error())
				}
				err := c.Barrier()
				var ae *AbortError
				if !errors.As(err, &ae) || ae.Rank != 2 || ae.Code != 3 || !errors.Is(err, ErrAborted) {
					return fmt.Errorf("not the abort of rank 2: %w", err)
				}
				if err2 := c.Barrier(); !errors.Is(err2, ErrAborted) {
					return fmt.Errorf("a later Barrier returned %v", err2)
				}
				return err
			},
			want: "aborted",
		},
		{
			name: "a closed rank",
			f: func(c Comm) error {
				if c.Rank() == 0 {
					return fmt.Errorf("closed: %w; %v", ErrAborted, c.(closer).Close())
				}
				_, err := c.Broadcast(1, []byte("x"))
				return err
			},
			want: "aborted",
		},
		{
			name: "bad root",
			f: func(c Comm) error {
				_, err := c.Broadcast(3, nil)
				return err
			},
			want: "ranks are 0 to 2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for r, err := range onComms(t, 3, tt.f) {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("rank %d: %v, want an error with %q", r, err, tt.want)
				}
			}
		})
	}
}

// benchAllreduce times AllreduceFloat32Sum of n floats on goroutine
// ranks, reporting the algorithm bandwidth (the vector's bytes over the
// time) and the bus bandwidth (times 2(ranks-1)/ranks, what each rank
// sends and receives in a ring), as nccl-tests does.
func benchAllreduce(b *testing.B, ranks, n int) {
	comms, err := NewLocalComms(ranks)
	if err != nil {
		b.Fatal(err)
	}
	bufs := make([][]float32, ranks)
	for r := range bufs {
		bufs[r] = floats(r, n)
	}
	run := func(iters int) {
		var wg sync.WaitGroup
		for r, c := range comms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < iters; i++ {
					if err := c.AllreduceFloat32Sum(bufs[r]); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	run(1)
	b.SetBytes(int64(4 * n))
	b.ResetTimer()
	run(b.N)
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec*1e3, "ms/allreduce")
	b.ReportMetric(float64(4*n)/sec/1e9, "algGB/s")
	b.ReportMetric(float64(4*n)/sec/1e9*2*float64(ranks-1)/float64(ranks), "busGB/s")
}

// BenchmarkLocalAllreduce sums LeNet's weights (431,080 floats) and an
// AlexNet-sized vector (61M floats) over goroutine ranks.
func BenchmarkLocalAllreduce(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"lenet", 431080}, {"alexnet", 61_000_000}} {
		for _, ranks := range []int{2, 4} {
			b.Run(fmt.Sprintf("%s/ranks=%d", size.name, ranks), func(b *testing.B) {
				benchAllreduce(b, ranks, size.n)
			})
		}
	}
}
