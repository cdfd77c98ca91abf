package kernel

import "math"

// The solver rules' updates, each in one pass over a parameter's gradient
// and history (SGD's is SGDStep, vec.go).

// AdamStep applies one step of Adam to a parameter's gradient g and its
// moments m and v (as long as g), in one pass: m = b1·m + (1−b1)·g,
// v = b2·v + (1−b2)·g², and g becomes the step rate·(m / (√v + eps)),
// rate holding the bias correction √(1−b2^t)/(1−b1^t). Every operation is
// rounded to float32 on its own, in adamGo's order, by every
// implementation: the same results to the bit.
func AdamStep(g, m, v []float32, b1, b2, eps, rate float32) {
	checkLen("AdamStep", "m", len(m), len(g))
	checkLen("AdamStep", "v", len(v), len(g))
	n := len(g)
	active.vec.adam(g, m[:n], v[:n], b1, 1-b1, b2, 1-b2, eps, rate)
}

func init() {
	goVec.adam, goVec.nesterov, goVec.rmsProp, goVec.adaGrad, goVec.adaDelta = adamGo, nesterovGo, rmsPropGo, adaGradGo, adaDeltaGo
}

// adamGo is AdamStep in Go: c1 = 1−b1 and c2 = 1−b2.
func adamGo(g, m, v []float32, b1, c1, b2, c2, eps, r float32) {
	m, v = m[:len(g)], v[:len(g)]
	for i, x := range g {
		mi := b1*m[i] + c1*x
		vi := b2*v[i] + c2*(x*x)
		m[i], v[i] = mi, vi
		g[i] = r * (mi / (sqrt32(vi) + eps))
	}
}

// sqrt32 is √x rounded to float32.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// NesterovStep applies one step of Nesterov's momentum to a parameter's
// gradient g and history h (as long as g), in one pass: x = mom·h +
// rate·g, g becomes the step (1+mom)·x − mom·h, and h becomes x. Every
// operation is rounded on its own, in nesterovGo's order.
func NesterovStep(g, h []float32, mom, rate float32) {
	checkLen("NesterovStep", "h", len(h), len(g))
	active.vec.nesterov(g, h[:len(g)], mom, 1+mom, rate)
}

// nesterovGo is NesterovStep in Go: c = 1+mom.
func nesterovGo(g, h []float32, mom, c, rate float32) {
	h = h[:len(g)]
	for i, v := range g {
		prev := h[i]
		x := mom*prev + rate*v
		h[i] = x
		g[i] = c*x - mom*prev
	}
}

// RMSPropStep applies one step of RMSProp to a parameter's gradient g and
// history h (as long as g), in one pass: h = d·h + (1−d)·g², and g
// becomes the step rate·(g / (√h + delta)). Every operation is rounded on
// its own, in rmsPropGo's order.
func RMSPropStep(g, h []float32, d, delta, rate float32) {
	checkLen("RMSPropStep", "h", len(h), len(g))
	active.vec.rmsProp(g, h[:len(g)], d, 1-d, delta, rate)
}

// rmsPropGo is RMSPropStep in Go: c = 1−d.
func rmsPropGo(g, h []float32, d, c, delta, rate float32) {
	h = h[:len(g)]
	for i, v := range g {
		x := d*h[i] + c*(v*v)
		h[i] = x
		g[i] = rate * (v / (sqrt32(x) + delta))
	}
}

// AdaGradStep applies one step of AdaGrad to a parameter's gradient g and
// history h (as long as g), in one pass: h = h + g², and g becomes the
// step rate·(g / (√h + delta)). Every operation is rounded on its own, in
// adaGradGo's order.
func AdaGradStep(g, h []float32, delta, rate float32) {
	checkLen("AdaGradStep", "h", len(h), len(g))
	active.vec.adaGrad(g, h[:len(g)], delta, rate)
}

// adaGradGo is AdaGradStep in Go.
func adaGradGo(g, h []float32, delta, rate float32) {
	h = h[:len(g)]
	for i, v := range g {
		x := h[i] + v*v
		h[i] = x
		g[i] = rate * (v / (sqrt32(x) + delta))
	}
}

// AdaDeltaStep applies one step of AdaDelta to a parameter's gradient g
// and histories h and h2 (as long as g), in one pass: h = rho·h +
// (1−rho)·g², u = g·√((h2 + delta)/(h + delta)), h2 = rho·h2 +
// (1−rho)·u², and g becomes the step rate·u. Every operation is rounded
// on its own, in adaDeltaGo's order.
func AdaDeltaStep(g, h, h2 []float32, rho, delta, rate float32) {
	checkLen("AdaDeltaStep", "h", len(h), len(g))
	checkLen("AdaDeltaStep", "h2", len(h2), len(g))
	n := len(g)
	active.vec.adaDelta(g, h[:n], h2[:n], rho, 1-rho, delta, rate)
}

// adaDeltaGo is AdaDeltaStep in Go: c = 1−rho.
func adaDeltaGo(g, h, h2 []float32, rho, c, delta, rate float32) {
	h, h2 = h[:len(g)], h2[:len(g)]
	for i, v := range g {
		x := rho*h[i] + c*(v*v)
		h[i] = x
		u := v * sqrt32((h2[i]+delta)/(x+delta))
		h2[i] = rho*h2[i] + c*(u*u)
		g[i] = rate * u
	}
}
