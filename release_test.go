package sparknet

import (
	"github.com/sparknet-go/sparknet/rdd"

	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// storeKeys counts the trainers' entries in the worker stores.
func storeKeys(t *testing.T, f *fixture) int {
	t.Helper()
	res, err := f.sc.RunWorkers(context.Background(), func(tc *rdd.TaskContext) (any, error) {
		n := 0
		for _, k := range tc.Store().Keys() {
			if strings.HasPrefix(k, "sparknet/trainer") {
				n++
			}
		}
		return n, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range res {
		n += r.(int)
	}
	return n
}

// Close releases a trainer's replicas at once; a trainer that is never
// closed releases them once nothing refers to it, even while something
// holds the functions that unsubscribe from it (as a web UI does).
func TestTrainerReleasesReplicas(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	sp := testSolverParam(t, "")
	closed, err := Parallelize(f.sc, sp, f.train, Options{Tau: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := closed.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := storeKeys(t, f); n != 2 {
		t.Fatalf("%d store entries after a round on 2 partitions, want 2", n)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if n := storeKeys(t, f); n != 0 {
		t.Fatalf("%d store entries after Close", n)
	}

	var unsubscribe []func()
	for i := 0; i < 3; i++ {
		func() {
			tr, err := Parallelize(f.sc, sp, f.train, Options{Tau: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			unsubscribe = append(unsubscribe, tr.Subscribe(func(RoundEvent) {}), tr.SubscribeSteps(func(StepEvent) {}))
			if _, err := tr.Round(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := storeKeys(t, f); n < 2 {
				t.Fatalf("%d store entries after a round on 2 partitions", n)
			}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for storeKeys(t, f) > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := storeKeys(t, f); n != 0 {
		t.Errorf("%d store entries are left by trainers nothing refers to", n)
	}
	for _, u := range unsubscribe {
		u() // the trainers are gone: nothing to do, and no panic
	}
}
