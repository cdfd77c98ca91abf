package display

import (
	"fmt"
	"math"
	"time"
)

// EventKind says what a training Event reports.
type EventKind int

// The event kinds, in the order a round produces them.
const (
	// StepDone reports finished local steps within a round.
	StepDone EventKind = iota
	// RoundDone reports a finished round: the workers' weights averaged.
	// Loss is the round's training loss.
	RoundDone
	// Evaluated reports a test pass; Loss and Accuracy are test values.
	Evaluated
)

func (k EventKind) String() string {
	switch k {
	case StepDone:
		return "StepDone"
	case RoundDone:
		return "RoundDone"
	case Evaluated:
		return "Evaluated"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one report of training progress. Trainers emit their own
// events; an adapter turns them into Events for Progress and History, so
// displays depend on no trainer. Counts start at 1; zero means unknown.
type Event struct {
	Kind   EventKind
	Round  int // the current round, from 1
	Rounds int // rounds planned, or 0
	Step   int // local steps done in the current round
	Steps  int // local steps per round, or 0
	// Loss and Accuracy are NaN when the event does not carry them.
	Loss     float64
	Accuracy float64
	// Elapsed is the training time so far; zero means "measure it".
	Elapsed time.Duration
}

// NewEvent returns an event of kind k with Loss and Accuracy unknown.
func NewEvent(k EventKind, round, rounds, step, steps int) Event {
	return Event{Kind: k, Round: round, Rounds: rounds, Step: step, Steps: steps, Loss: math.NaN(), Accuracy: math.NaN()}
}

// fraction returns how much of the planned training is done, in [0, 1],
// or -1 when the plan is unknown.
func (e Event) fraction() float64 {
	if e.Rounds <= 0 {
		return -1
	}
	done := float64(max(e.Round-1, 0))
	switch {
	case e.Kind != StepDone:
		done = float64(e.Round)
	case e.Steps > 0:
		done += float64(e.Step) / float64(e.Steps)
	}
	return math.Min(math.Max(done/float64(e.Rounds), 0), 1)
}

// Observer receives training events.
type Observer interface {
	Observe(e Event)
}

// Observers sends every event to each of its members in order.
type Observers []Observer

// Observe sends e to each observer.
func (os Observers) Observe(e Event) {
	for _, o := range os {
		o.Observe(e)
	}
}
