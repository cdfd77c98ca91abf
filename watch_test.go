package sparknet

import (
	"context"
	"testing"
)

func TestWatcher(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	tr := f.trainer(t, testSolverParam(t, "SGD"), Options{Tau: 2})
	type call struct{ rounds, ended int }
	var calls []*call
	defer SetWatcher(SetWatcher(func(w *Trainer, rounds int) func() {
		if w != tr {
			t.Errorf("watcher called for another trainer")
		}
		c := &call{rounds: rounds}
		calls = append(calls, c)
		return func() { c.ended = w.RoundsDone() }
	}))
	ctx := context.Background()
	if err := tr.Rounds(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.RunTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	want := []call{{2, 2}, {0, 3}, {2, 5}}
	if len(calls) != len(want) {
		t.Fatalf("%d watcher calls, want %d", len(calls), len(want))
	}
	for i, c := range calls {
		if *c != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, *c, want[i])
		}
	}
	// A subscriber replaces the watcher.
	unsubscribe := tr.Subscribe(func(RoundEvent) {})
	if err := tr.Rounds(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 {
		t.Errorf("the watcher ran for a trainer with a subscriber")
	}
	unsubscribe()
	if err := tr.Rounds(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 4 {
		t.Errorf("the watcher did not run after the subscriber left")
	}
}
