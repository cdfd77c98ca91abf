package repl

import (
	"sync"
	"time"

	sparknet "github.com/sparknet-go/sparknet"
	"github.com/sparknet-go/sparknet/repl/display"
)

// busyClock measures the time during which the session runs code: an
// input, or goroutines that go statements of inputs started. It is the
// clock of the session's progress displays (display.SetClock), so that
// time spent waiting at the prompt does not count in their elapsed times
// and ETAs.
type busyClock struct {
	mu    sync.Mutex
	n     int // inputs and goroutines running
	since time.Time
	total time.Duration
}

func (c *busyClock) enter() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		c.since = time.Now()
	}
	c.n++
}

func (c *busyClock) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.n == 0 {
		c.total += time.Since(c.since)
	}
}

// read returns the time spent busy so far.
func (c *busyClock) read() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.total
	if c.n > 0 {
		t += time.Since(c.since)
	}
	return t
}

// watchTraining is the shell's watcher of training runs (see
// sparknet.SetWatcher): a trainer's Rounds, RunTo or Round that nothing
// subscribed to shows its progress as display.TrackTrainer does, a live
// bar and a line per round on a terminal, a line per round on a pipe; the
// bar is cleared when the call returns.
func watchTraining(t *sparknet.Trainer, rounds int) (done func()) {
	if rounds == 0 && display.LiveAvailable() {
		return chainRound(t)
	}
	endRoundChain()
	tr, stop := display.TrackTrainer(t, rounds)
	return func() {
		stop()
		tr.Progress.Finish()
	}
}

// roundChain is the progress display of the Round calls of one trainer
// in the input that runs, where a front end shows live displays: a
// notebook's loop of Round calls (for r := 0; r < n; r++ { t.Round(ctx)
// }, the training loop of sparknet's documentation) shows one display,
// updated in place with each round, as Rounds does, not one per round.
// The input's end, or a run of another trainer, finishes it.
var roundChain struct {
	sync.Mutex
	t  *sparknet.Trainer
	tr *display.Training
}

// chainRound shows a Round call of t on the input's display of t's
// rounds, made on the first, and returns what stops it at the call's end.
func chainRound(t *sparknet.Trainer) (done func()) {
	roundChain.Lock()
	defer roundChain.Unlock()
	if roundChain.t != t {
		finishRoundChain()
		roundChain.t, roundChain.tr = t, display.NewTraining()
	}
	return display.TrackTrainerOn(roundChain.tr, t, 0)
}

// endRoundChain finishes the display of the Round calls of the input
// that ends (see roundChain).
func endRoundChain() {
	roundChain.Lock()
	defer roundChain.Unlock()
	finishRoundChain()
}

// finishRoundChain is endRoundChain; the caller holds roundChain's lock.
func finishRoundChain() {
	if roundChain.tr != nil {
		roundChain.tr.Progress.Finish()
	}
	roundChain.t, roundChain.tr = nil, nil
}
