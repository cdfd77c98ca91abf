package sparknet

import "sync/atomic"

// watcher is the function that SetWatcher installed, or nil.
var watcher atomic.Pointer[func(t *Trainer, rounds int) (done func())]

// SetWatcher makes f the watcher of training runs and returns the
// previous one (nil for none). While Rounds (and so RunTo) or Round runs
// on a trainer that has no subscribers, f is called as the call starts,
// with the number of rounds it will run (0 for Round, which does not
// know how many more will follow), and the function it returns as the
// call ends. sparknet-shell installs one that shows the progress of
// training at its prompt, so that a run is never silent; a subscriber,
// such as display.TrackTrainer, replaces it. Nothing in the trainer
// prints.
func SetWatcher(f func(t *Trainer, rounds int) (done func())) (previous func(t *Trainer, rounds int) (done func())) {
	var p *func(*Trainer, int) func()
	if f != nil {
		p = &f
	}
	if old := watcher.Swap(p); old != nil {
		return *old
	}
	return nil
}

// watch calls the watcher for a run of rounds rounds on t, unless t has
// subscribers, and returns what to call when the run ends.
func (t *Trainer) watch(rounds int) (done func()) {
	p := watcher.Load()
	if p == nil || t.subscribed() {
		return func() {}
	}
	if done := (*p)(t, rounds); done != nil {
		return done
	}
	return func() {}
}

// subscribed reports whether a function receives t's events, other than
// the observers OnParallelize hooks subscribed (a web UI does not show
// progress at the prompt).
func (t *Trainer) subscribed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, f := range t.events {
		if f != nil && !t.observers.events[i] {
			return true
		}
	}
	for i, f := range t.steps {
		if f != nil && !t.observers.steps[i] {
			return true
		}
	}
	return false
}
