package sparknet

import (
	"context"
	"testing"

	"github.com/sparknet-go/sparknet/caffe"
)

func TestOnParallelize(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	var seen []*Trainer
	var rounds []RoundEvent
	remove := OnParallelize(func(tr *Trainer) {
		if tr.Context() != f.sc {
			return // a trainer of another test
		}
		seen = append(seen, tr)
		tr.Subscribe(func(e RoundEvent) { rounds = append(rounds, e) })
	})
	broken := OnParallelize(func(*Trainer) { panic("a broken hook") })
	tr := f.trainer(t, testSolverParam(t, ""), Options{Tau: 3, Seed: 1})
	if len(seen) != 1 || seen[0] != tr {
		t.Fatalf("the hook saw %v", seen)
	}
	if err := tr.Rounds(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 || rounds[1].Iter != 6 {
		t.Errorf("the hook's subscription got %v", rounds)
	}
	remove()
	broken()
	f.trainer(t, testSolverParam(t, ""), Options{Tau: 3, Seed: 1})
	if len(seen) != 1 {
		t.Errorf("a removed hook was called: %d trainers", len(seen))
	}

	sp := tr.SolverParameter()
	if sp.GetLrPolicy() != "inv" || sp.TrainNetParam == nil {
		t.Fatalf("solver parameter %v", sp)
	}
	lr, err := caffe.LearningRate(sp, tr.Iter())
	if err != nil || lr <= 0 || lr >= 0.05 {
		t.Errorf("learning rate at iteration %d: %g, %v", tr.Iter(), lr, err)
	}
	sp.BaseLr = proto32(9)
	if tr.SolverParameter().GetBaseLr() != 0.05 {
		t.Error("SolverParameter returns the trainer's own message")
	}
}

// What an OnParallelize hook subscribes observes in the background: the
// watcher still shows the run, until someone else subscribes.
func TestHookSubscriptionsLeaveTheWatcher(t *testing.T) {
	f := newFixture(t, "local[2]", 2)
	rounds := 0
	remove := OnParallelize(func(tr *Trainer) {
		if tr.Context() == f.sc {
			tr.Subscribe(func(RoundEvent) { rounds++ })
			tr.SubscribeSteps(func(StepEvent) {})
		}
	})
	defer remove()
	tr := f.trainer(t, testSolverParam(t, ""), Options{Tau: 2, Seed: 1})
	watched := 0
	defer SetWatcher(SetWatcher(func(w *Trainer, n int) func() {
		if w == tr {
			watched++
		}
		return nil
	}))
	ctx := context.Background()
	if err := tr.Rounds(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if watched != 1 || rounds != 2 {
		t.Errorf("with a hook's subscriptions: watched %d times, the hook saw %d rounds", watched, rounds)
	}
	stop := tr.Subscribe(func(RoundEvent) {})
	defer stop()
	if err := tr.Rounds(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if watched != 1 || rounds != 3 {
		t.Errorf("with a subscriber of its own: watched %d times, the hook saw %d rounds", watched, rounds)
	}
}
