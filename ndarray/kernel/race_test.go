//go:build race

package kernel

// raceEnabled: the race detector makes sync.Pool drop items, so the
// allocation tests cannot hold.
const raceEnabled = true
