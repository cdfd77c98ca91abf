package display

import (
	sparknet "github.com/sparknet-go/sparknet"
)

// TrackTrainer shows the next rounds rounds of a SparkNet trainer on a new
// Training: the bar moves with replica 0's local iterations and ends each
// round with the averaged round's loss (and test accuracy, when the round
// was evaluated). With rounds 0 the number of rounds is open, and rounds
// are counted as the trainer counts them. The returned function stops
// tracking.
func TrackTrainer(t *sparknet.Trainer, rounds int) (*Training, func()) {
	tr := NewTraining()
	return tr, TrackTrainerOn(tr, t, rounds)
}

// TrackTrainerOn is TrackTrainer on an existing Training: with rounds 0,
// the rounds of several calls go on one display, numbered as the
// trainer counts them (the shell shows a loop of Round calls so).
func TrackTrainerOn(tr *Training, t *sparknet.Trainer, rounds int) (stop func()) {
	base := t.RoundsDone()
	if rounds <= 0 {
		rounds, base = 0, 0
	}
	stopSteps := t.SubscribeSteps(func(e sparknet.StepEvent) {
		ev := NewEvent(StepDone, e.Round-base, rounds, e.Step, e.Tau)
		ev.Loss = e.Loss
		tr.Observe(ev)
	})
	stopRounds := t.Subscribe(func(e sparknet.RoundEvent) {
		ev := NewEvent(RoundDone, e.Round-base, rounds, e.Tau, e.Tau)
		ev.Loss = e.TrainLoss
		tr.Observe(ev)
		if e.Test != nil {
			te := NewEvent(Evaluated, e.Round-base, rounds, e.Tau, e.Tau)
			te.Loss, te.Accuracy = e.Test.Loss, e.Test.Accuracy
			tr.Observe(te)
		}
	})
	return func() { stopSteps(); stopRounds() }
}
