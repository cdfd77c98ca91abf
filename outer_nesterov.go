package sparknet

import (
	"fmt"

	"github.com/sparknet-go/sparknet/ndarray"
)

// OuterNesterov treats the averaged change of a round as a gradient for an
// outer SGD with Nesterov momentum, as DiLoCo (Douillard et al., 2023):
// g = w - mean(x_i); m = momentum·m + g; w -= lr·(g + momentum·m). lr 1
// and momentum 0 give the plain average; DiLoCo uses lr 0.7, momentum 0.9.
// Its momentum m is the state "momentum", kept in snapshots.
func OuterNesterov(lr, momentum float32) Outer { return nesterov{lr: lr, momentum: momentum} }

type nesterov struct{ lr, momentum float32 }

// Check refuses settings outside lr > 0, 0 <= momentum < 1.
func (n nesterov) Check(int) error {
	if n.lr <= 0 || n.momentum < 0 || n.momentum >= 1 {
		return fmt.Errorf("sparknet: outer Nesterov needs lr > 0 and 0 <= momentum < 1 (lr %g, momentum %g)", n.lr, n.momentum)
	}
	return nil
}

// Step takes one Nesterov step on g = w - sum/K.
func (n nesterov) Step(w, sum *ndarray.WeightCollection, k int, state *OuterState) error {
	if err := w.Compatible(sum); err != nil {
		return err
	}
	g := w.Clone().Axpy(-1/float32(k), sum)
	m := state.Get("momentum")
	if m == nil {
		m = g.Scale(0)
		state.Set("momentum", m)
	} else if err := m.Compatible(g); err != nil {
		return fmt.Errorf("sparknet: outer Nesterov's momentum does not match the weights: %w", err)
	}
	m.ScaleInPlace(n.momentum).AddInPlace(g)
	w.Axpy(-n.lr, g).Axpy(-n.lr*n.momentum, m)
	return nil
}

func (n nesterov) String() string {
	return fmt.Sprintf("nesterov(lr=%g, momentum=%g)", n.lr, n.momentum)
}
