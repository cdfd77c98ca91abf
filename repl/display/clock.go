package display

import "time"

// The clock of progress displays: elapsed times and ETAs are read from
// it. Outside the shell it is the wall clock; the shell sets one that
// stands still while it waits at the prompt, so that the time between a
// display.TrackSolver typed at one prompt and the training started at the
// next does not count.

// wallStart is the origin of the default clock.
var wallStart = time.Now()

var clock func() time.Duration

// SetClock makes f the clock of progress displays and returns the
// previous one (nil for the wall clock). f returns a monotonic reading:
// only differences between its readings matter. The shell calls it when
// a session starts.
func SetClock(f func() time.Duration) (previous func() time.Duration) {
	hookMu.Lock()
	defer hookMu.Unlock()
	previous, clock = clock, f
	return previous
}

// clockNow reads the clock of progress displays.
func clockNow() time.Duration {
	hookMu.RLock()
	f := clock
	hookMu.RUnlock()
	if f == nil {
		return time.Since(wallStart)
	}
	return f()
}
