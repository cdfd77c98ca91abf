package sparknet

import "github.com/sparknet-go/sparknet/ndarray"

// outerState is the driver's state of an outer optimizer.
type outerState struct {
	Outer
	buf *ndarray.WeightCollection // OuterNesterov's momentum buffer, made on the first step
}

// step turns the global weights w (updated in place) and the sum of the K
// replicas' weights into the next global weights.
func (s *outerState) step(w, sum *ndarray.WeightCollection, k int) {
	inv := 1 / float32(k)
	switch s.kind {
	case outerAverage:
		w.CopyFrom(sum).ScaleInPlace(inv)
	case outerElastic:
		// c += alpha Σ (x_i - c) = alpha (sum - K c)
		d := sum.Clone().Axpy(-float32(k), w)
		w.Axpy(s.alpha, d)
	case outerNesterov:
		// g = w - sum/K
		g := w.Clone().Axpy(-inv, sum)
		if s.buf == nil {
			s.buf = g.Scale(0)
		}
		s.buf.ScaleInPlace(s.momentum).AddInPlace(g)
		// w -= lr (g + mu m)
		w.Axpy(-s.lr, g).Axpy(-s.lr*s.momentum, s.buf)
	}
}

// pull applies EASGD's elastic pull to a replica's weights x toward the
// center c: x -= alpha (x - c).
func (s *outerState) pull(x, c *ndarray.WeightCollection) {
	x.ScaleInPlace(1-s.alpha).Axpy(s.alpha, c)
}
