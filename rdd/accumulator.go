package rdd

import (
	"fmt"
	"sync"
)

// Accumulator is a float64 sum that tasks add to and the driver reads,
// such as a count of bad records or a running loss. Adds from a failed
// task attempt stay counted (as in Spark for transformations), so use
// action results where retries must not double count.
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
	a.mu.Lock()
	a.pending += v
	a.mu.Unlock()
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
