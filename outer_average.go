package sparknet

import "github.com/sparknet-go/sparknet/ndarray"

// PlainAverage is SparkNet's outer step: the next global weights are the
// mean of the replicas' weights. It keeps no state. It is the default
// (a nil Options.Outer).
func PlainAverage() Outer { return plainAverage{} }

type plainAverage struct{}

// Step sets w to sum/K.
func (plainAverage) Step(w, sum *ndarray.WeightCollection, k int, _ *OuterState) error {
	if err := w.Compatible(sum); err != nil {
		return err
	}
	w.CopyFrom(sum).ScaleInPlace(1 / float32(k))
	return nil
}

func (plainAverage) String() string { return "average" }
