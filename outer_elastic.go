package sparknet

import (
	"fmt"

	"github.com/sparknet-go/sparknet/ndarray"
)

// ElasticAveraging is synchronous EASGD (Zhang, Choromanska and LeCun,
// 2015) with moving rate alpha: after its τ steps each replica's weights
// x_i are pulled toward the center c, x_i -= alpha (x_i - c), and the
// center moves toward them, c += alpha Σ (x_i - c). Replicas keep their
// own weights between rounds; the center is the trainer's Weights.
// alpha·K below 1 is stable; 0.9/K is a common choice.
func ElasticAveraging(alpha float32) Outer { return elastic{alpha: alpha} }

type elastic struct{ alpha float32 }

var _ OuterPuller = elastic{}

// Check refuses rates that do not converge for K replicas.
func (e elastic) Check(k int) error {
	if e.alpha <= 0 || e.alpha*float32(k) >= 2 {
		return fmt.Errorf("sparknet: elastic averaging needs 0 < alpha and alpha·K < 2 (alpha %g, K %d); try %g", e.alpha, k, 0.9/float32(k))
	}
	return nil
}

// Step moves the center: c += alpha (sum - K c).
func (e elastic) Step(w, sum *ndarray.WeightCollection, k int, _ *OuterState) error {
	if err := w.Compatible(sum); err != nil {
		return err
	}
	d := sum.Clone().Axpy(-float32(k), w)
	w.Axpy(e.alpha, d)
	return nil
}

// Pull applies the elastic pull to a replica's weights x toward the center
// c: x -= alpha (x - c).
func (e elastic) Pull(x, c *ndarray.WeightCollection) {
	x.ScaleInPlace(1-e.alpha).Axpy(e.alpha, c)
}

func (e elastic) String() string { return fmt.Sprintf("elastic(alpha=%g)", e.alpha) }
