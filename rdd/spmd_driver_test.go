package rdd_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparknet-go/sparknet/rdd"
	"github.com/sparknet-go/sparknet/rdd/internal/spmdtest"
)

// TestSPMD runs the same driver on goroutine ranks over an SPMD engine
// and on the local engine: every rank must describe the same results as
// local[3].
func TestSPMD(t *testing.T) {
	const n = 3
	local, err := rdd.NewContext(fmt.Sprintf("local[%d]", n))
	if err != nil {
		t.Fatal(err)
	}
	want := spmdtest.Driver(local)
	local.Close()
	comms, err := rdd.NewLocalComms(n)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, n)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc, err := rdd.NewContextWith(rdd.Options{Engine: rdd.NewSPMDEngine(c)})
			if err != nil {
				got[r] = err.Error()
				return
			}
			got[r] = spmdtest.Driver(sc)
			if err := sc.Close(); err != nil {
				got[r] += "close: " + err.Error()
			}
		}()
	}
	wg.Wait()
	for r := range got {
		if got[r] != want {
			t.Errorf("rank %d printed\n%s\nlocal[%d] printed\n%s", r, got[r], n, want)
		}
	}
	for _, line := range []string{"partition 1 failed after 4 attempts", "allreduceWeights: [6 18 12 24] [4] 6 6 65536 <nil>",
		"sumWeights: [6 18 12 24] [4] 6 6 65536 [-3] [0 10 20 30] <nil>", "sumWeights of 2: [1 3 2 4] [2] 1 1 65536 [-0.5] [0 10] <nil>"} {
		if !strings.Contains(want, line) {
			t.Errorf("driver output lacks %q:\n%s", line, want)
		}
	}
}

func TestLocalComms(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprint("ranks=", n), func(t *testing.T) {
			comms, err := rdd.NewLocalComms(n)
			if err != nil {
				t.Fatal(err)
			}
			errs := make([]error, n)
			var wg sync.WaitGroup
			for r, c := range comms {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[r] = spmdtest.CheckComm(c)
				}()
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("the ranks hung")
			}
			for r, err := range errs {
				if err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
			}
		})
	}
}
