package rdd

import (
	"fmt"
	"sync"
)

// Accumulator is a float64 sum that tasks add to and the driver reads,
// such as a count of bad records or a running loss. What a task attempt
// adds counts only once the attempt succeeds: the adds of failed
// attempts are dropped, so a retried task counts once. (Adds made from
// goroutines that a task starts count at once. A partition computed
// again in a later job, because it was not cached, counts again, as in
// Spark.)
//
// With an SPMD engine each process sums what its tasks add, and the sums
// of all processes are merged at the end of every job.
type Accumulator struct {
	id   int
	name string

	mu      sync.Mutex
	value   float64 // merged total
	pending float64 // added on this process since the last merge
}

// Accumulator returns a new accumulator, starting at 0. It lives as long
// as the Context.
func (sc *Context) Accumulator(name string) *Accumulator {
	sc.accMu.Lock()
	defer sc.accMu.Unlock()
	a := &Accumulator{id: len(sc.accs) + 1, name: name}
	sc.accs = append(sc.accs, a)
	return a
}

// Add adds v. It is safe to call from any number of tasks at once.
func (a *Accumulator) Add(v float64) {
	if t, ok := attempts.Load(goroutine()); ok {
		t.(*attemptAdds).add(a, v)
		return
	}
	a.mu.Lock()
	a.pending += v
	a.mu.Unlock()
}

// attempts maps the goroutines running task attempts to what the
// attempts add to accumulators.
var attempts sync.Map

// attemptAdds is what one task attempt added, kept until it succeeds.
type attemptAdds struct {
	g    uintptr
	sums map[*Accumulator]float64 // only the attempt's goroutine touches it
}

// beginAttempt starts collecting the adds of the calling goroutine.
func beginAttempt() *attemptAdds {
	t := &attemptAdds{g: goroutine()}
	attempts.Store(t.g, t)
	return t
}

func (t *attemptAdds) add(a *Accumulator, v float64) {
	if t.sums == nil {
		t.sums = map[*Accumulator]float64{}
	}
	t.sums[a] += v
}

// end stops collecting and, when the attempt succeeded, adds what it
// collected.
func (t *attemptAdds) end(ok bool) {
	attempts.Delete(t.g)
	if !ok {
		return
	}
	for a, v := range t.sums {
		a.mu.Lock()
		a.pending += v
		a.mu.Unlock()
	}
}

// Value returns the sum so far.
func (a *Accumulator) Value() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.value + a.pending
}

// Reset sets the sum to 0.
func (a *Accumulator) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.value, a.pending = 0, 0
}

// Name is the name given when it was made.
func (a *Accumulator) Name() string { return a.name }

func (a *Accumulator) String() string {
	return fmt.Sprintf("Accumulator(%s: %v)", a.name, a.Value())
}

// syncAccumulators merges every accumulator's pending adds across
// processes.
func (sc *Context) syncAccumulators() error {
	sc.accMu.Lock()
	defer sc.accMu.Unlock()
	if len(sc.accs) == 0 {
		return nil
	}
	xs := make([]float64, len(sc.accs))
	for i, a := range sc.accs {
		a.mu.Lock()
		xs[i] = a.pending
		a.pending = 0
		a.mu.Unlock()
	}
	if err := sc.engine.SumFloat64(xs); err != nil {
		return fmt.Errorf("rdd: merging accumulators: %w", err)
	}
	for i, a := range sc.accs {
		a.mu.Lock()
		a.value += xs[i]
		a.mu.Unlock()
	}
	return nil
}
