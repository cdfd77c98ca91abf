//go:build !parstats

package caffe

// Without the parstats build tag the hooks of the parallel runner's
// accounting (parstats.go) are empty and compile to nothing.

// parStats turns the accounting on.
const parStats = false

// statsSerial: the runs' parts run on their goroutines.
const statsSerial = false

// runStats is a parallelRunner's accounting of its current run: empty.
type runStats struct{}

func (*runStats) begin(parts, workers int) {}
func (*runStats) partStart(w, p int)       {}
func (*runStats) partEnd(w, p int)         {}
func (*runStats) startedAhead()            {}
func (*runStats) ownDone()                 {}
func (*runStats) end()                     {}

// statsSegment marks the start of a stretch of a pass on the calling
// goroutine: what runs until the next mark is charged to it.
func statsSegment(kind byte, layer string) {}
