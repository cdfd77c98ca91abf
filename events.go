package sparknet

import "fmt"

// RoundEvent reports a finished round to subscribers (progress bars,
// logs, plots). Nothing in the trainer prints.
type RoundEvent struct {
	// Round counts the rounds done, from 1.
	Round int
	// Iter is the global iteration count after the round: the local
	// iterations every replica has run.
	Iter int
	// Tau is the number of local iterations of this round.
	Tau int
	// Replicas is K, the number of model replicas.
	Replicas int
	// TrainLoss is the mean loss of the round's local iterations over all
	// replicas.
	TrainLoss float64
	// Test holds the test metrics when the round was followed by a test
	// (see Trainer.Evaluate), else nil.
	Test *TestResult
	// ComputeSeconds is the wall time of the local iterations;
	// CommSeconds that of the broadcast and the reduction, injected
	// latency and bandwidth costs included.
	ComputeSeconds, CommSeconds float64
	// BytesMoved counts the bytes a driver would send and receive: the
	// broadcast to and the collection from K replicas.
	BytesMoved int64
}

func (e RoundEvent) String() string {
	s := fmt.Sprintf("round %d iter %d loss %.4f compute %.2fs comm %.2fs", e.Round, e.Iter, e.TrainLoss, e.ComputeSeconds, e.CommSeconds)
	if e.Test != nil {
		s += fmt.Sprintf(" test loss %.4f accuracy %.4f", e.Test.Loss, e.Test.Accuracy)
	}
	return s
}

// StepEvent reports a local iteration of replica 0 during a round, so a
// display can move within a round. It is delivered on the worker that runs
// replica 0 (under an SPMD engine, on rank 0 only), while the round runs.
type StepEvent struct {
	// Round is the round being run, from 1.
	Round int
	// Step counts replica 0's iterations in this round, from 1 to Tau.
	Step, Tau int
	// Iter is the global iteration count after the step.
	Iter int
	// Loss is replica 0's loss at this iteration.
	Loss float64
}
