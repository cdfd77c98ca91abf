package caffe

// With more than one thread, a pass does ahead of time, on the pooled
// goroutines, the work that some layers begin their Forward or Backward
// with and that depends on their parameters alone (the direct
// convolution packs its weights: about 3 µs for LeNet's conv2, forward
// and backward each), while the calling goroutine runs the layers before
// them, which leave the other threads idle (a data layer, the loss and
// the small layers next to it). A layer cuts its work into pieces that
// run apart (the convolution's packing, by tiles of its outputs or
// inputs), so that the calling goroutine, done with those layers, takes
// the pieces that no other goroutine has begun instead of waiting for
// them. The work is the same, and so are the results; it only moves off
// the serial stretches.

// prepAhead turns the work ahead on (tests compare passes without it).
var prepAhead = true

// passPreparer is a layer with such work.
type passPreparer interface {
	// prepPieces returns the pieces the work of the next Forward
	// (backward false) or Backward cuts into (at least 1, at most most),
	// and readies the layer for them: it runs on the pass's goroutine
	// before the pieces.
	prepPieces(backward bool, most int) int
	// prepare does piece p of that work. The pieces run on other
	// goroutines than the pass, in any order and at once, before the
	// pass reaches the layer (or reshapes it).
	prepare(backward bool, p int)
	// unprepare drops what prepare did for Forward (backward false) or
	// Backward that the pass did not use, at the end of the pass. It
	// leaves the work for the other pass alone, which may be under way
	// (a forward pass ends after it began the backward pass's).
	unprepare(backward bool)
}

// passPreps is a net's work done ahead of its passes.
type passPreps struct {
	layers []int // the layers that are passPreparers, in order
	// preparers: those layers as passPreparers (asserted once: an
	// assertion to an interface in a pass could allocate, as the runtime
	// now and then grows the call site's cache of types).
	preparers []passPreparer
	todo      []int // the current pass's: positions in layers, in the order run
	// pieces: the current pass's pieces of work, in the order run: a
	// layer and the piece.
	pieces []prepPiece
	first  int // the pass waits for the work before layer first runs
	// backward: the current pass's work is a backward pass's.
	backward bool
	runner   parallelRunner
	prepFns  [2]func(w, p int) // forward, backward
}

// prepPiece is piece p of layer l's work ahead.
type prepPiece struct {
	l passPreparer
	p int
}

// startPreps begins the work ahead of a forward (backward false) or
// backward pass on the pooled goroutines: of the layers that run in it,
// their Backward only where it computes their input's gradient. It
// returns the layer before which the pass waits for the work
// (waitPreps), −1 for none.
func (n *Net) startPreps(backward bool) int { return n.startPrepsOn(&n.preps, backward) }

// startPrepsOn is startPreps with the work's state in p.
func (n *Net) startPrepsOn(p *passPreps, backward bool) int {
	threads := n.Threads()
	if threads <= 1 || !prepAhead {
		return -1
	}
	if p.prepFns[0] == nil {
		for i, l := range n.layers {
			if pl, ok := l.(passPreparer); ok {
				p.layers = append(p.layers, i)
				p.preparers = append(p.preparers, pl)
			}
		}
		p.prepFns[0] = func(_, k int) { prepLayer(p.pieces[k], false) }
		p.prepFns[1] = func(_, k int) { prepLayer(p.pieces[k], true) }
	}
	p.todo, p.pieces, p.backward = p.todo[:0], p.pieces[:0], backward
	for j, i := range p.layers {
		if backward && (!n.layerNeedBackward[i] || len(n.bottomNeedBackward[i]) == 0 || !n.bottomNeedBackward[i][0]) {
			continue
		}
		p.todo = append(p.todo, j)
	}
	if len(p.todo) == 0 {
		return -1
	}
	if !backward {
		if _, f, g := n.fedGroups(0); g != nil && chainFits(f, g) && p.layers[p.todo[len(p.todo)-1]] <= g.last {
			// The first layer is fed within the chained groups' run,
			// which has every layer with work ahead: the run packs
			// the weights on the calling goroutine while the others
			// feed their pieces (net_feed.go).
			p.todo = p.todo[:0]
			return -1
		}
	}
	p.first = p.layers[p.todo[0]]
	if backward {
		p.first = p.layers[p.todo[len(p.todo)-1]]
	}
	if p.first == 0 && !backward || p.first == len(n.layers)-1 && backward {
		// Nothing runs before it.
		return -1
	}
	for _, j := range p.todo {
		l := p.preparers[j]
		for k := range l.prepPieces(backward, threads) {
			p.pieces = append(p.pieces, prepPiece{l, k})
		}
	}
	p.runner.start(threads, len(p.pieces), p.prepFns[btoi(backward)])
	return p.first
}

// prepLayer runs a piece of a layer's work ahead of a pass. A panic
// leaves the work to the layer's own pass, which reports it.
func prepLayer(pc prepPiece, backward bool) {
	l := pc.l
	defer func() {
		if r := recover(); r != nil {
			l.unprepare(backward)
		}
	}()
	l.prepare(backward, pc.p)
}

// waitPreps waits for the work that startPreps began, if any.
func (n *Net) waitPreps() { n.preps.runner.finish() }

// endPreps ends a pass's work ahead: waits for it and drops what the
// layers did not use.
func (n *Net) endPreps() { n.endPrepsOn(&n.preps) }

// endPrepsOn is endPreps for the work in p.
func (n *Net) endPrepsOn(p *passPreps) {
	p.runner.finish()
	for _, j := range p.todo {
		p.preparers[j].unprepare(p.backward)
	}
	p.todo, p.pieces = p.todo[:0], p.pieces[:0]
}

// A solver's iteration runs a forward pass and then, with the weights
// unchanged, a backward pass. Its forward pass ends with layers that
// leave the other threads idle (LeNet's ReLU after ip1, ip2 and the
// loss), and its backward pass begins with them, where the work ahead of
// the backward pass, begun there, keeps a pooled goroutine from the
// first layers that share out their work (LeNet's ip2 computes its input
// and weight gradients side by side). So within a solver's iteration
// (Net.backwardNext) the forward pass begins the backward pass's work
// ahead when it reaches those last layers (earlyStart), and the
// backward pass that follows waits for it as for its own.

// earlyPreps turns the early start on (tests and benchmarks compare
// iterations without it).
var earlyPreps = true

// earlyFLOPs is the most operations of a layer's forward pass that
// counts as a layer that leaves the other threads idle.
const earlyFLOPs = 4 << 20

// earlyStart returns the layer at which a forward pass begins the work
// ahead of the backward pass that follows: the first layer after which
// each is small (earlyFLOPs), after every layer prepared ahead of either
// pass, and not the first layer; −1 for none. It is worked out once per
// shape of the net.
func (n *Net) earlyStart() int {
	if n.earlyAt != earlyUnknown {
		return n.earlyAt
	}
	at := len(n.layers)
	for at > 0 {
		if _, ok := n.layers[at-1].(passPreparer); ok {
			break
		}
		if f, _ := n.LayerFLOPs(at - 1); f > earlyFLOPs {
			break
		}
		at--
	}
	n.earlyAt = at
	if at <= 0 || at >= len(n.layers) {
		n.earlyAt = -1
	}
	return n.earlyAt
}

// earlyUnknown marks Net.earlyAt as not worked out for the current shapes.
const earlyUnknown = -2

// startEarlyPreps begins the backward pass's work ahead within a forward
// pass (see above).
func (n *Net) startEarlyPreps() {
	n.earlyWait = n.startPrepsOn(&n.early, true)
	n.earlyRunning = n.earlyWait >= 0
}

// takeEarlyPreps hands the work ahead that the forward pass began to the
// backward pass: it returns the layer before which to wait for it (−1
// for none) and its state, or ok false when there is none.
func (n *Net) takeEarlyPreps() (wait int, p *passPreps, ok bool) {
	if !n.earlyRunning {
		return -1, nil, false
	}
	n.earlyRunning = false
	return n.earlyWait, &n.early, true
}

// dropEarlyPreps ends work ahead that the forward pass began for a
// backward pass that does not follow (the forward pass failed).
func (n *Net) dropEarlyPreps() {
	if n.earlyRunning {
		n.earlyRunning = false
		n.endPrepsOn(&n.early)
	}
}
