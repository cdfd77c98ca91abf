package rdd

import (
	"fmt"
	"sync"
)

// Broadcast is a read-only value made available to every worker, such as
// the weights of a training round. In the local engine the workers share
// the one value; an SPMD engine gives each process the first process's
// value. Tasks must not modify it.
//
// A Broadcast holds only its current value: Update replaces it and
// Destroy drops it, so nothing of earlier rounds stays reachable.
type Broadcast struct {
	sc *Context
	id int

	mu        sync.RWMutex
	value     any
	destroyed bool
}

// Broadcast makes v available to every worker.
func (sc *Context) Broadcast(v any) (*Broadcast, error) {
	shared, err := sc.engine.Broadcast(v)
	if err != nil {
		return nil, fmt.Errorf("rdd: Broadcast: %w", err)
	}
	return &Broadcast{sc: sc, id: int(sc.nextBroadcast.Add(1)), value: shared}, nil
}

// ID identifies the broadcast within its Context.
func (b *Broadcast) ID() int { return b.id }

// Value returns the current value. Using a destroyed Broadcast is a
// programming error: Value panics, which inside a task fails the task
// with an error that says so.
func (b *Broadcast) Value() any {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.destroyed {
		panic(fmt.Sprintf("rdd: broadcast %d used after Destroy", b.id))
	}
	return b.value
}

// Update replaces the value for the jobs that follow; the old value is
// released. Do not call it while a job that reads the broadcast runs.
func (b *Broadcast) Update(v any) error {
	shared, err := b.sc.engine.Broadcast(v)
	if err != nil {
		return fmt.Errorf("rdd: Broadcast %d: %w", b.id, err)
	}
	return b.SetReplicated(shared)
}

// Destroy releases the value; later uses are errors.
func (b *Broadcast) Destroy() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.value = nil
	b.destroyed = true
}

func (b *Broadcast) String() string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.destroyed {
		return fmt.Sprintf("Broadcast(%d, destroyed)", b.id)
	}
	return fmt.Sprintf("Broadcast(%d)", b.id)
}
