package caffe

// With more than one thread, a pass does ahead of time, on the pooled
// goroutines, the work that some layers begin their Forward or Backward
// with and that depends on their parameters alone (the direct
// convolution packs its weights: about 20 µs for LeNet's conv2, forward
// and backward each), while the calling goroutine runs the layers before
// them, which leave the other threads idle (a data layer, the loss and
// the small layers next to it). The work is the same, and so are the
// results; it only moves off the serial stretches.

// prepAhead turns the work ahead on (tests compare passes without it).
var prepAhead = true

// passPreparer is a layer with such work.
type passPreparer interface {
	// prepare does the work of the next Forward (backward false) or
	// Backward. It runs on another goroutine than the pass, before the
	// pass reaches the layer (or reshapes it).
	prepare(backward bool)
	// unprepare drops what prepare did that Forward or Backward did not
	// use, at the end of the pass.
	unprepare()
}

// passPreps is a net's work done ahead of its passes.
type passPreps struct {
	layers  []int // the layers that are passPreparers, in order
	todo    []int // the current pass's: layers prepared, in the order run
	first   int   // the pass waits for the work before layer first runs
	runner  parallelRunner
	prepFns [2]func(w, p int) // forward, backward
}

// startPreps begins the work ahead of a forward (backward false) or
// backward pass on the pooled goroutines: of the layers that run in it,
// their Backward only where it computes their input's gradient. It
// returns the layer before which the pass waits for the work
// (waitPreps), −1 for none.
func (n *Net) startPreps(backward bool) int {
	threads := n.Threads()
	if threads <= 1 || !prepAhead {
		return -1
	}
	p := &n.preps
	if p.prepFns[0] == nil {
		for i, l := range n.layers {
			if _, ok := l.(passPreparer); ok {
				p.layers = append(p.layers, i)
			}
		}
		p.prepFns[0] = func(_, k int) { n.prepLayer(p.todo[k], false) }
		p.prepFns[1] = func(_, k int) { n.prepLayer(p.todo[k], true) }
	}
	p.todo = p.todo[:0]
	for _, i := range p.layers {
		if backward && (!n.layerNeedBackward[i] || len(n.bottomNeedBackward[i]) == 0 || !n.bottomNeedBackward[i][0]) {
			continue
		}
		p.todo = append(p.todo, i)
	}
	if len(p.todo) == 0 {
		return -1
	}
	p.first = p.todo[0]
	if backward {
		p.first = p.todo[len(p.todo)-1]
	}
	if p.first == 0 && !backward || p.first == len(n.layers)-1 && backward {
		// Nothing runs before it.
		return -1
	}
	p.runner.start(threads, len(p.todo), p.prepFns[btoi(backward)])
	return p.first
}

// prepLayer runs layer i's work ahead of a pass. A panic leaves the work
// to the layer's own pass, which reports it.
func (n *Net) prepLayer(i int, backward bool) {
	l := n.layers[i].(passPreparer)
	defer func() {
		if r := recover(); r != nil {
			l.unprepare()
		}
	}()
	l.prepare(backward)
}

// waitPreps waits for the work that startPreps began, if any.
func (n *Net) waitPreps() { n.preps.runner.finish() }

// endPreps ends a pass's work ahead: waits for it and drops what the
// layers did not use.
func (n *Net) endPreps() {
	n.waitPreps()
	for _, i := range n.preps.todo {
		n.layers[i].(passPreparer).unprepare()
	}
	n.preps.todo = n.preps.todo[:0]
}
