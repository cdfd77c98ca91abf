//go:build race

package repl

// The interpreter races with itself when an input is interrupted (its
// ExecuteWithContext writes its results from two goroutines) and when
// interpreted goroutines run; tests of those skip under the race detector.
const raceEnabled = true
