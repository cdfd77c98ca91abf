package sparknet

import (
	"fmt"
	"time"

	"github.com/sparknet-go/sparknet/caffe"
	"github.com/sparknet-go/sparknet/data"
	"github.com/sparknet-go/sparknet/rdd"
)

// Options configures a Trainer. The zero value is SparkNet's scheme with
// τ = 10: plain averaging of the weights, each replica keeping its own
// solver history.
type Options struct {
	// Tau is the number of local solver iterations every replica runs per
	// round (τ in the paper). 0 means 10.
	Tau int
	// Average says what is averaged after a round: the weights only
	// (SparkNet; each replica keeps its momentum) or the weights and the
	// solver history (momentum, Adam moments, ...).
	Average Averaging
	// Outer turns the replicas' weights into the next global weights:
	// PlainAverage (nil means it), ElasticAveraging, OuterNesterov, or an
	// Outer of your own. It keeps its state across rounds, so give every
	// trainer its own.
	Outer Outer
	// WarmupRounds runs the first rounds with τ = 1 before switching to
	// Tau (post-local SGD).
	WarmupRounds int
	// Order is how a replica draws minibatches from its partition:
	// data.Sequential (contiguous windows, as SparkNet's apps did; the
	// default), data.Shuffle (a seeded shuffle per epoch) or
	// data.RandomWindows.
	Order data.Order
	// Seed makes runs repeatable: it seeds the initial weights, the
	// minibatch order and every layer's random numbers.
	Seed uint64
	// Threads is how many goroutines each replica's kernels may use; 0
	// means 1, as every worker runs on its own core.
	Threads int
	// Latency and Bandwidth inject a communication cost into every round,
	// as if the driver talked to the workers over a slow network:
	// broadcast and collect each take Latency plus the bytes they move
	// divided by Bandwidth (bytes per second; 0 is unlimited).
	Latency   time.Duration
	Bandwidth float64
	// Test, when set, is an RDD of samples the trainer tests on after every
	// TestEvery rounds (and after the last of Rounds); the result is in the
	// round's event.
	Test      *rdd.RDD
	TestEvery int
	// Checkpoint, when set, is the path prefix of the snapshots the trainer
	// writes after every CheckpointEvery rounds (0 means 10) and after the
	// last round of Rounds and RunTo.
	Checkpoint      string
	CheckpointEvery int
	// Resume makes Parallelize continue from the latest snapshot under
	// Checkpoint, when there is one (Trainer.ResumedFrom names it).
	// ResumeFromCheckpoints sets it for every trainer of the process
	// (sparknet-shell --resume).
	//
	// A set of checkpoints belongs to one run: without Resume, Parallelize
	// refuses a Checkpoint prefix that holds checkpoints already (another
	// run's, which this one would overwrite round by round), unless
	// Overwrite is set; then the old set is removed when this run writes
	// its first checkpoint. OverwriteCheckpoints sets it for every trainer
	// of the process (sparknet-shell --overwrite).
	Resume    bool
	Overwrite bool
	// Compress sends the replicas' changes of the weights compressed
	// (bfloat16, float16 or top-k sparse, with error feedback) instead of
	// their float32 weights; the zero value sends the weights.
	// WeightsOnly averaging only.
	Compress Compression
	// Solver passes options to every replica's solver (search folders for
	// net files, for example). Threads, Seed and Rewrite are set by the
	// trainer.
	Solver caffe.SolverOptions
}

// Averaging says which state a round averages.
type Averaging int

const (
	// WeightsOnly averages the weights; every replica keeps its own
	// solver history (momentum) across rounds, as SparkNet does.
	WeightsOnly Averaging = iota
	// WeightsAndHistory averages the solver history too and broadcasts
	// it with the weights.
	WeightsAndHistory
)

func (a Averaging) String() string {
	switch a {
	case WeightsOnly:
		return "weights"
	case WeightsAndHistory:
		return "weights+history"
	}
	return fmt.Sprintf("Averaging(%d)", int(a))
}

// ResumeFromCheckpoints makes every trainer with a Checkpoint prefix
// resume from its latest snapshot, as if Options.Resume were set. The shell
// sets it for --resume, so a script restarted after a failure continues
// where its checkpoints left off.
var ResumeFromCheckpoints bool

// OverwriteCheckpoints lets every trainer replace the checkpoints another
// run left under its Checkpoint prefix, as if Options.Overwrite were set.
// The shell sets it for --overwrite.
var OverwriteCheckpoints bool

// InjectedLatency is the Latency of every trainer whose Options set none.
// sparknet-shell sets it from --latency (or $SPARKNET_LATENCY), which
// scripts/netcluster.sh passes to its hosts where the kernel cannot
// delay packets itself (no netem).
var InjectedLatency time.Duration

func (o *Options) withDefaults() Options {
	c := *o
	if c.CheckpointEvery <= 0 {
		c.CheckpointEvery = 10
	}
	if ResumeFromCheckpoints {
		c.Resume = true
	}
	if OverwriteCheckpoints {
		c.Overwrite = true
	}
	if c.Latency == 0 {
		c.Latency = InjectedLatency
	}
	if c.Tau <= 0 {
		c.Tau = 10
	}
	if c.Threads <= 0 {
		c.Threads = 1
	}
	c.Outer = outerOrDefault(c.Outer)
	return c
}

// tauFor returns the number of local iterations of round r (0-based).
func (o *Options) tauFor(r int) int {
	if r < o.WarmupRounds {
		return 1
	}
	return o.Tau
}
