package rdd

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// onRanks runs f on n goroutine ranks, each with a Context over its own
// Comm of NewLocalComms, and returns what each returned. A panic in f is
// returned as "panic: VALUE". Ranks that do not all finish within a
// minute are a hang, which fails the test.
func onRanks(t *testing.T, n int, f func(sc *Context) string) []string {
	t.Helper()
	comms, err := NewLocalComms(n)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, n)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					got[r] = fmt.Sprint("panic: ", p)
				}
			}()
			sc, err := NewContextWith(Options{Engine: NewSPMDEngine(c)})
			if err != nil {
				got[r] = err.Error()
				return
			}
			got[r] = f(sc)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the ranks hung; so far they returned %q", got)
	}
	return got
}

func TestSPMDUnregisteredType(t *testing.T) {
	type secret struct{ X int }
	got := onRanks(t, 2, func(sc *Context) string {
		defer sc.Close()
		_, err := sc.Range(0, 4, 1, 2).Map(func(x any) any { return secret{x.(int)} }).Collect()
		return fmt.Sprint(err)
	})
	for r, s := range got {
		if !strings.Contains(s, "rdd.Register") {
			t.Errorf("rank %d: error %s", r, s)
		}
	}
	if got[0] != got[1] {
		t.Errorf("ranks disagree: %s / %s", got[0], got[1])
	}
}

// vec is a custom type that crosses ranks through its binary form, as a
// weight collection does.
type vec struct{ xs []float32 }

func (v *vec) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 4*len(v.xs))
	for _, x := range v.xs {
		b = fmt.Appendf(b, "%g;", x)
	}
	return b, nil
}

func (v *vec) UnmarshalBinary(b []byte) error {
	v.xs = nil
	for _, f := range strings.Split(strings.TrimSuffix(string(b), ";"), ";") {
		var x float32
		if _, err := fmt.Sscan(f, &x); err != nil {
			return err
		}
		v.xs = append(v.xs, x)
	}
	return nil
}

func TestSPMDCustomType(t *testing.T) {
	if err := Register(&vec{}); err != nil {
		t.Fatal(err)
	}
	got := onRanks(t, 2, func(sc *Context) string {
		defer sc.Close()
		// Only rank 0's value counts.
		bc, err := sc.Broadcast(&vec{[]float32{float32(10 * (sc.Rank() + 1))}})
		if err != nil {
			return err.Error()
		}
		res, err := sc.Range(0, 4, 1, 4).RunPartitions(nil, func(tc *TaskContext) (any, error) {
			return &vec{[]float32{bc.Value().(*vec).xs[0], float32(tc.Partition())}}, nil
		})
		var parts []string
		for _, v := range res {
			parts = append(parts, fmt.Sprint(v.(*vec).xs))
		}
		return fmt.Sprint(parts, err, sc.Master())
	})
	want := "[[10 0] [10 1] [10 2] [10 3]] <nil>spmd[rank %d of 2]"
	for r := range got {
		if got[r] != fmt.Sprintf(want, r) {
			t.Errorf("rank %d: %s", r, got[r])
		}
	}
}

func TestSPMDContextRanks(t *testing.T) {
	got := onRanks(t, 3, func(sc *Context) string {
		defer sc.Close()
		return fmt.Sprint(sc.Rank(), sc.IsDriver(), sc.Comm().Size(), sc.Workers())
	})
	want := []string{"0 true 3 3", "1 false 3 3", "2 false 3 3"}
	for r := range got {
		if got[r] != want[r] {
			t.Errorf("rank %d: Rank, IsDriver, Comm().Size, Workers = %s, want %s", r, got[r], want[r])
		}
	}
	sc := newTestContext(t, "local[2]")
	if sc.Rank() != 0 || !sc.IsDriver() || sc.Comm() != nil || sc.Agree(errors.New("x")).Error() != "x" {
		t.Errorf("local[2]: Rank %d, IsDriver %v, Comm %v", sc.Rank(), sc.IsDriver(), sc.Comm())
	}
}

// TestSPMDFailures checks that a failure on some ranks only ends the job
// on every rank, with a message that names the cause, and never hangs.
func TestSPMDFailures(t *testing.T) {
	count := func(sc *Context) string {
		_, err := sc.Range(0, 30, 1, 3).Count()
		return fmt.Sprint(err)
	}
	tests := []struct {
		name  string
		rank  func(sc *Context) string // rank 1's driver; the others run count
		want  []string                 // in every rank's result
		panic string                   // rank 1's panic, if it panics
	}{
		{
			name: "returns early",
			rank: func(sc *Context) string { return fmt.Sprint(sc.Close()) },
			want: []string{"diverged", "rank 1: closing its Context", "ranks 0, 2: job 1 (Count), stage 1"},
		},
		{
			name: "panics",
			rank: func(sc *Context) string {
				defer sc.Close()
				panic("boom on rank 1")
			},
			want:  []string{"diverged", "panic: boom on rank 1", "spmd_test.go"},
			panic: "panic: boom on rank 1",
		},
		{
			name: "fails alone",
			rank: func(sc *Context) string {
				defer sc.Close()
				return fmt.Sprint(sc.Agree(errors.New("open train.idx: no such file")))
			},
			want: []string{"diverged", "rank 1: Agree (open train.idx: no such file)"},
		},
		{
			name: "other collective",
			rank: func(sc *Context) string {
				defer sc.Close()
				return fmt.Sprint(sc.Comm().AllreduceFloat32Sum(make([]float32, 7)))
			},
			want: []string{"diverged", "rank 1: AllreduceFloat32Sum of 7 floats"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := onRanks(t, 3, func(sc *Context) string {
				if sc.Rank() == 1 {
					return tt.rank(sc)
				}
				defer sc.Close()
				return count(sc)
			})
			for r, s := range got {
				if r == 1 && tt.panic != "" {
					if s != tt.panic {
						t.Errorf("rank 1: %s, want the panic again (%s)", s, tt.panic)
					}
					continue
				}
				if !strings.Contains(s, "aborted the job") {
					t.Errorf("rank %d: %s, want an abort", r, s)
				}
				for _, w := range tt.want {
					if !strings.Contains(s, w) {
						t.Errorf("rank %d: %s\nlacks %q", r, s, w)
					}
				}
			}
		})
	}
}

func TestSPMDAgree(t *testing.T) {
	tests := []struct {
		name string
		fail []bool // by rank
		want []string
	}{
		{"none", []bool{false, false, false}, []string{"<nil>", "<nil>", "<nil>"}},
		{"all", []bool{true, true, true}, []string{"bad 0", "bad 1", "bad 2"}},
		{"some", []bool{false, true, true}, []string{"ranks 1, 2 failed while rank 0 did not", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := onRanks(t, 3, func(sc *Context) string {
				defer sc.Close()
				var err error
				if tt.fail[sc.Rank()] {
					err = fmt.Errorf("bad %d", sc.Rank())
				}
				err = sc.Agree(err)
				if tt.want[0] == "<nil>" || tt.fail[0] {
					// The job goes on: a later action works.
					if _, cerr := sc.Range(0, 3, 1, 3).Count(); cerr != nil {
						return cerr.Error()
					}
				}
				return fmt.Sprint(err)
			})
			for r := range got {
				if !strings.Contains(got[r], tt.want[r]) {
					t.Errorf("rank %d: %s, want %q", r, got[r], tt.want[r])
				}
			}
			if tt.name == "some" {
				for r := range got {
					if !strings.Contains(got[r], "aborted") || !strings.Contains(got[r], "rank 1: bad 1; rank 2: bad 2") {
						t.Errorf("rank %d: %s, want an abort naming both failures", r, got[r])
					}
				}
			}
		})
	}
}

// recordingComm records that it was closed.
type recordingComm struct {
	Comm
	closed *int
	mu     *sync.Mutex
}

func (c recordingComm) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.closed++
	return nil
}

func TestSPMDCloseClosesComm(t *testing.T) {
	comms, err := NewLocalComms(2)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	closed := 0
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, err := NewContextWith(Options{Engine: NewSPMDEngine(recordingComm{c, &closed, &mu})})
			if err != nil {
				errs[r] = err
				return
			}
			errs[r] = sc.Close()
			if err := sc.Close(); err != nil {
				errs[r] = fmt.Errorf("second Close: %w", err)
			}
		}()
	}
	wg.Wait()
	if closed != 2 || errs[0] != nil || errs[1] != nil {
		t.Errorf("closed %d comms, errors %v; want 2 and none", closed, errs)
	}
}
