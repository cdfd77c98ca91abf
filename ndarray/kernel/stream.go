package kernel

// SGDStepTo applies the step of SGDStep to a parameter w with history h
// from a gradient g that it leaves alone, writing the update (the new
// history, what SGDStep leaves in g) to d instead: the same values of w,
// h and d, bit for bit, as SGDStep(w, g, h, …) gives in w, h and g. The
// assembly kernels write d with non-temporal stores, which send it to
// memory without reading its old lines into the cache first: for a
// gradient computed into a buffer that stays in the cache and an update
// that nothing reads soon (Caffe's diff after a step), this saves
// reading d and keeps the cache for the next block. len(g), len(h) and
// len(d) must be at least len(w).
func SGDStepTo(w, g, h, d []float32, decay, rate, momentum float32) {
	checkLen("SGDStepTo", "g", len(g), len(w))
	checkLen("SGDStepTo", "h", len(h), len(w))
	checkLen("SGDStepTo", "d", len(d), len(w))
	n := len(w)
	active.vec.sgdTo(w, g[:n], h[:n], d[:n], decay, rate, momentum)
}

func init() {
	goVec.sgdTo = sgdToGo
	goVec.fill = fillGo
}

// sgdToGo is SGDStepTo with sgdGo's operations.
func sgdToGo(w, g, h, d []float32, decay, rate, momentum float32) {
	g, h, d = g[:len(w)], h[:len(w)], d[:len(w)]
	for i, wi := range w {
		t := g[i]
		if decay != 0 {
			t += decay * wi
		}
		hi := rate*t + momentum*h[i]
		h[i], d[i] = hi, hi
		w[i] = wi + -1*hi
	}
}

// fillGo sets every value of x to v (the Go compiler chooses the stores).
func fillGo(x []float32, v float32, _ bool) {
	for i := range x {
		x[i] = v
	}
}
