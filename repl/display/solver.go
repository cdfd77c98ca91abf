package display

import (
	"math"
	"strings"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
)

// Training shows a training run as it goes and records it: a Progress on
// the shell's output and a History for curves.
type Training struct {
	Progress *Progress
	History  *History
	started  bool
	start    time.Duration
}

// NewTraining returns a Training that draws on the shell's output. Its
// clock starts with the first event, and in the shell it stands still
// while the prompt waits (see SetClock).
func NewTraining() *Training {
	return &Training{Progress: NewProgress(), History: &History{}}
}

// Observe passes e to the progress display and the history; the live
// bar goes away after the last planned round.
func (t *Training) Observe(e Event) {
	if !t.started {
		t.started, t.start = true, clockNow()
	}
	if e.Elapsed == 0 {
		e.Elapsed = clockNow() - t.start
	}
	t.Progress.Observe(e)
	t.History.Observe(e)
	if e.Kind == RoundDone && e.Rounds > 0 && e.Round >= e.Rounds {
		t.Progress.Finish()
	}
}

// Figure draws the recorded loss and accuracy curves.
func (t *Training) Figure() *Figure { return t.History.Figure() }

// String draws the recorded curves as sparklines.
func (t *Training) String() string { return t.History.String() }

// TrackSolver reports the next iters iterations of a Caffe solver to a
// new Training, counting every `every` iterations as a round whose loss
// is the mean over them and whose accuracy is the train net's accuracy
// output, when it has one. Test passes become Evaluated events. It sets
// the solver's OnStep and OnTest handlers.
func TrackSolver(s *caffe.Solver, iters, every int) *Training {
	t := NewTraining()
	if every <= 0 || every > iters {
		every = max(iters, 1)
	}
	rounds := (iters + every - 1) / every
	base := s.Iter()
	var sum, accSum float64
	var n, accN int
	round := func(iter int) (r, step, steps int) {
		done := iter - base
		r = done/every + 1
		steps = min(every, iters-(r-1)*every)
		return r, done - (r-1)*every, steps
	}
	s.OnStep(func(e caffe.StepEvent) {
		r, step, steps := round(e.Iter + 1)
		if step == 0 { // the last step of round r-1
			r, step = r-1, every
			steps = step
		}
		sum += float64(e.Loss)
		n++
		for _, o := range e.Outputs {
			if strings.Contains(strings.ToLower(o.Name), "acc") && len(o.Values) > 0 {
				accSum += float64(o.Values[0])
				accN++
				break
			}
		}
		ev := NewEvent(StepDone, r, rounds, step, steps)
		ev.Loss = float64(e.Loss)
		t.Observe(ev)
		if step == steps {
			ev.Kind = RoundDone
			ev.Loss = sum / float64(n)
			if accN > 0 {
				ev.Accuracy = accSum / float64(accN)
			}
			t.Observe(ev)
			sum, n, accSum, accN = 0, 0, 0, 0
		}
	})
	s.OnTest(func(e caffe.TestEvent) {
		r, _, _ := round(e.Iter)
		ev := NewEvent(Evaluated, max(r-1, 0), rounds, 0, 0)
		ev.Loss = e.Result.Loss
		if acc, ok := e.Result.Get("accuracy"); ok {
			ev.Accuracy = acc
		}
		if ev.Loss == 0 && math.IsNaN(ev.Accuracy) {
			return
		}
		t.Observe(ev)
	})
	return t
}
