//go:build !race

package caffe

// raceEnabled reports a -race build, where synchronisation allocates and
// allocation counts are not meaningful.
const raceEnabled = false
