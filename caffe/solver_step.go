package caffe

import (
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// An iteration with iter_size 1, no gradient clipping and a built-in
// update rule (each of which updates every value of a parameter from that
// value's gradient and history alone) does its work on the parameters
// inside the backward pass: a parameter's gradient is cleared just before
// the first layer (in backward order) that adds to it runs its backward,
// and the parameter is updated just after the last one has, while its
// gradient is still in the cache. Every value goes through the same
// operations in the same order as in clearing everything, running the
// whole backward pass and then updating everything, so the weights, the
// history and the diffs after the step (the update, as Caffe leaves them)
// are the same bit for bit. A layer that can write a parameter's gradient
// instead of adding to it (paramDiffWriter: the inner product's and the
// convolution's weights, the convolution clearing the diff in the part of
// its run that adds into it) does so as that parameter's first writer,
// and the solver does not clear the gradient. Other iterations (iter_size > 1, clip_gradients, a
// registered update rule) clear, run forward and backward, and update in
// turn.

// paramDiffWriter is a layer whose Backward can write the gradient of
// some of its parameters instead of adding to the diff, with the bits of
// adding to a cleared diff.
type paramDiffWriter interface {
	// writesParamDiff reports whether Backward can write the gradient of
	// parameter j (and will compute it at all).
	writesParamDiff(j int) bool
	// setWriteParamDiff makes Backward write those gradients (on) or add
	// to them (off).
	setWriteParamDiff(on bool)
}

// paramUpdater is a layer whose Backward can update one of its
// parameters itself, block by block as it computes the gradient, through
// a function the solver gives it.
type paramUpdater interface {
	// updatesParam reports whether Backward can update parameter j.
	updatesParam(j int) bool
	// setParamUpdate makes Backward update that parameter with fn, which
	// updates values [lo, hi) on goroutine w (< the net's threads) from
	// their gradient, in grad if not nil (then the diff, which the
	// gradient did not go through, receives what the update leaves
	// there), else in the diff; nil turns it off.
	setParamUpdate(fn func(w, lo, hi int, grad []float32))
}

// updateAheader is a paramUpdater that knows, while its Backward runs,
// how far (in values, 0 if it does not) the next call of its update
// function on a goroutine will lie from the values the call at hand
// updates: InnerProduct's one-pass backward hands its update a row piece
// of the weights at a time, the next one a row further on
// (kernel.FCBackward), whose history the SGD step can then prefetch
// (kernel.SGDStepAhead).
type updateAheader interface {
	updateAhead() int
}

// diffDeferrer is a paramUpdater whose next Backward, given an update
// function, hands it the gradient of every value of parameter j in a
// buffer (never in the diff), does not read or write that parameter's
// diff, and lets the update overwrite the buffer: the SGD step then need
// not write the diff (see deferDiff), as it equals the new history.
type diffDeferrer interface {
	defersParamDiff(j int) bool
}

// builtinRules are the update rules that update each value of a
// parameter from its gradient and history alone.
var builtinRules = map[string]bool{"SGD": true, "Nesterov": true, "AdaGrad": true, "RMSProp": true, "AdaDelta": true, "Adam": true}

// stepPlan is where in the backward pass an in-pass iteration clears
// and updates each learnable parameter, as parts (sgdSpan) of at most
// sgdChunkSize values, cut so that the parts of a parameter share out
// evenly among the net's threads.
type stepPlan struct {
	// start: parameters that no layer running backward touches, cleared
	// before the pass and updated after it.
	startClear, endUpdate []sgdSpan
	// Per layer: the parts cleared before its backward and updated after.
	clear, update [][]sgdSpan
	// writers[i] is layer i when it writes a parameter's gradient,
	// updaters[i] when it updates a parameter itself, with updateFns[i],
	// learnable parameter updated[i] (its index j among the layer's
	// parameters in updatedIndex[i]). deferrers[i] is the
	// updater as a diffDeferrer, nil if it is not one: the assertion is
	// made here, since an assertion to an interface in the step could
	// allocate (the runtime now and then grows the call site's cache of
	// types).
	writers      []paramDiffWriter
	updaters     []paramUpdater
	deferrers    []diffDeferrer
	updateFns    []func(w, lo, hi int, grad []float32)
	updated      []int
	updatedIndex []int
}

// inPassSteps turns the in-pass iterations on (tests compare both).
var inPassSteps = true

// layerParamWork lets an in-pass iteration leave the clearing and the
// update of a convolution's weights to its backward runs (paramDiffWriter,
// paramUpdater), and an inner product's input gradient blocks run with
// its weight gradient (weightGradWithBlocks); benchmarks compare it off
// (a solver's plan keeps the setting of its first in-pass iteration).
var layerParamWork = true

// inPassStep reports whether the next iteration updates the parameters
// within the backward pass.
func (s *Solver) inPassStep() bool {
	sp := s.param
	return inPassSteps && sp.GetIterSize() == 1 && sp.GetClipGradients() < 0 && builtinRules[s.typeName]
}

// buildStepPlan works out s.plan for the train net.
func (s *Solver) buildStepPlan() {
	n := s.net
	def := n.def
	layers := len(def.Layers)
	// The first (highest) and last (lowest) layer in backward order that
	// may add to each learnable parameter, -1 for none.
	firstTouch := make([]int, len(n.learnable))
	lastTouch := make([]int, len(n.learnable))
	uses := make([]int, len(n.learnable)) // references by the first toucher
	for k := range firstTouch {
		firstTouch[k], lastTouch[k] = -1, -1
	}
	for i := layers - 1; i >= 0; i-- {
		if !n.layerNeedBackward[i] {
			continue
		}
		for _, pid := range def.Layers[i].Params {
			k := def.Params[pid].Learnable
			if k < 0 {
				continue
			}
			if firstTouch[k] < 0 {
				firstTouch[k] = i
			}
			if firstTouch[k] == i {
				uses[k]++
			}
			lastTouch[k] = i
		}
	}
	p := &stepPlan{clear: make([][]sgdSpan, layers), update: make([][]sgdSpan, layers),
		writers: make([]paramDiffWriter, layers), updaters: make([]paramUpdater, layers),
		deferrers: make([]diffDeferrer, layers), updateFns: make([]func(w, lo, hi int, grad []float32), layers),
		updated: make([]int, layers), updatedIndex: make([]int, layers)}
	threads := max(1, n.Threads())
	for k, b := range n.learnable {
		spans := splitParam(k, b.Count(), threads)
		if firstTouch[k] < 0 {
			p.startClear = append(p.startClear, spans...)
			p.endUpdate = append(p.endUpdate, spans...)
			continue
		}
		i := firstTouch[k]
		written := false
		_, conv := n.layers[i].(*Convolution)
		if w, ok := n.layers[i].(paramDiffWriter); ok && uses[k] == 1 && (layerParamWork || !conv) {
			for j, pid := range def.Layers[i].Params {
				if def.Params[pid].Learnable == k && w.writesParamDiff(j) {
					written = true
					p.writers[i] = w
				}
			}
		}
		if !written {
			p.clear[i] = append(p.clear[i], spans...)
		}
		if u, ok := n.layers[i].(paramUpdater); ok && uses[k] == 1 && lastTouch[k] == i && p.updaters[i] == nil && (layerParamWork || !conv) {
			for j, pid := range def.Layers[i].Params {
				if def.Params[pid].Learnable == k && u.updatesParam(j) && p.updaters[i] == nil {
					p.updaters[i] = u
					p.deferrers[i], _ = u.(diffDeferrer)
					ahead, _ := u.(updateAheader)
					p.updateFns[i] = func(w, lo, hi int, grad []float32) {
						c := sgdSpan{k: k, lo: lo, hi: hi}
						if ahead != nil {
							c.ahead = ahead.updateAhead()
						}
						s.updateSpanFrom(w, c, grad)
					}
					p.updated[i], p.updatedIndex[i] = k, j
				}
			}
			if p.updaters[i] != nil {
				continue
			}
		}
		p.update[lastTouch[k]] = append(p.update[lastTouch[k]], spans...)
	}
	s.plan = p
}

// splitParam cuts the count values of learnable parameter k into parts
// of at most sgdChunkSize values, as many as a multiple of threads when
// there is more than one, or the parameter has at least sgdSplitMin
// values (LeNet's conv2: 25,000 weights in two parts on two threads).
func splitParam(k, count, threads int) []sgdSpan {
	parts := (count + sgdChunkSize - 1) / sgdChunkSize
	if parts > 1 || count >= sgdSplitMin {
		parts = (parts + threads - 1) / threads * threads
	}
	var spans []sgdSpan
	size := max(1, (count+parts-1)/parts+15) &^ 15
	for lo := 0; lo < count; lo += size {
		spans = append(spans, sgdSpan{k: k, lo: lo, hi: min(count, lo+size)})
	}
	return spans
}

// stepInPass runs an in-pass iteration (see above) and returns its loss.
func (s *Solver) stepInPass() (float32, error) {
	if s.plan == nil {
		s.buildStepPlan()
		s.spanFn = s.updatePart
		s.spanHist = make([][][]float32, max(1, s.net.Threads()))
		for w := range s.spanHist {
			s.spanHist[w] = make([][]float32, s.rule.History)
		}
	}
	p := s.plan
	if parStats {
		statsSegment('s', "clear")
	}
	s.runSpans(p.startClear, s.clearFn)
	s.net.backwardNext = true
	loss, err := s.net.Forward()
	s.net.backwardNext = false
	if err != nil {
		s.net.dropEarlyPreps()
		s.clearParamDiffs() // as a plain iteration leaves them
		return 0, err
	}
	if math32IsBad(loss) {
		// Diverged: the diffs hold the gradients, as after a plain
		// pass, and the weights are left alone.
		s.clearParamDiffs()
		if err := s.net.Backward(); err != nil {
			return 0, err
		}
		return loss, nil
	}
	s.sgdRate = float32(s.policy.Rate(s.param, s.iter, &s.currentStep))
	s.stepWD, s.stepMomentum = s.param.GetWeightDecay(), s.param.GetMomentum()
	err = s.net.backwardWith(s)
	if err != nil {
		for i, w := range p.writers {
			if w != nil {
				w.setWriteParamDiff(false)
			}
			if u := p.updaters[i]; u != nil {
				u.setParamUpdate(nil)
			}
		}
		return 0, err
	}
	if parStats {
		statsSegment('s', "update")
	}
	s.runSpans(p.endUpdate, s.spanFn)
	if parStats {
		statsSegment(0, "")
	}
	return loss, nil
}

func math32IsBad(v float32) bool { return v != v || v > maxFloat32 || v < -maxFloat32 }

const maxFloat32 = 3.40282346638528859811704183484516925440e+38

// beforeBackward clears the gradients of layers [first, last] that the
// plan clears there and sets their writers writing.
func (s *Solver) beforeBackward(first, last int) {
	p := s.plan
	for i := last; i >= first; i-- {
		s.runSpans(p.clear[i], s.clearFn)
		if w := p.writers[i]; w != nil {
			w.setWriteParamDiff(true)
		}
		if u := p.updaters[i]; u != nil {
			u.setParamUpdate(p.updateFns[i])
			s.deferUpdatedDiff(p.deferrers[i], p.updated[i], p.updatedIndex[i])
		}
	}
}

// deferUpdatedDiff leaves the diff of learnable parameter k, which a
// layer updates as its parameter j in the coming backward pass, deferred
// to the history (Blob.deferDiff) where the step is SGD's one pass and
// the layer hands every value's gradient in a buffer (d, nil if it is
// not a diffDeferrer): the step then
// writes the update into the history alone, which the diff equals. Else
// a deferred diff is copied out now, before the pass, as the step writes
// the diff.
func (s *Solver) deferUpdatedDiff(d diffDeferrer, k, j int) {
	b := s.net.learnable[k]
	if d != nil && !s.histOut && s.sgdOnePass() && d.defersParamDiff(j) && b.deferDiff(s.histSlices[k][0]) {
		return
	}
	b.materializeDiff()
}

// sgdOnePass reports whether this iteration's update is SGD's step in one
// pass (kernel.SGDStep, SGDStepTo), which leaves the diff equal to the
// new history.
func (s *Solver) sgdOnePass() bool { return s.typeName == "SGD" && (!s.l1 || s.stepWD == 0) }

// afterBackward updates the parameters of layers [first, last] that the
// plan updates there.
func (s *Solver) afterBackward(first, last int) {
	p := s.plan
	for i := last; i >= first; i-- {
		if w := p.writers[i]; w != nil {
			w.setWriteParamDiff(false)
		}
		if u := p.updaters[i]; u != nil {
			u.setParamUpdate(nil)
		}
		s.runSpans(p.update[i], s.spanFn)
	}
}

// sgdSplitMin is the fewest values of a parameter that the passes over
// the parameters share out among threads, and of a run of such passes:
// fewer take less time than handing them to another goroutine and
// waiting for it (LeNet's conv1: 500 weights and 20 biases).
const sgdSplitMin = 1 << 14

// runSpans runs fn on every part in spans, shared out among the net's
// threads when they hold at least sgdSplitMin values.
func (s *Solver) runSpans(spans []sgdSpan, fn func(w, p int)) {
	if len(spans) == 0 {
		return
	}
	threads, values := s.net.Threads(), 0
	for _, c := range spans {
		values += c.hi - c.lo
	}
	if values < sgdSplitMin {
		threads = 1
	}
	s.spans = spans
	for done := 0; done < len(spans); done += 0xffff {
		s.sgdFrom = done
		s.sgdRunner.run(threads, min(0xffff, len(spans)-done), fn)
	}
	s.spans = nil
}

// clearPart clears the gradients of part p of runSpans.
func (s *Solver) clearPart(_, p int) {
	c := s.spans[s.sgdFrom+p]
	clear(s.net.learnable[c.k].grad()[c.lo:c.hi])
}

// updatePart updates the values of part p of runSpans on goroutine w.
func (s *Solver) updatePart(w, p int) { s.updateSpanFrom(w, s.spans[s.sgdFrom+p], nil) }

// updateSpanFrom updates the values of part c on goroutine w as
// applyUpdate does: the SGD step in one pass where applyUpdate takes it,
// else the weight decay, the rule's step and the update in turn. The
// gradient is in grad (c.hi−c.lo values) if it is not nil, else in the
// diff; either way the diff ends up holding what applyUpdate leaves in
// it. The SGD step reads grad and writes the diff in one pass
// (kernel.SGDStepTo), which then never reads the diff's old values, or,
// where the diff is deferred to the history (deferUpdatedDiff), leaves
// the update in the history and in grad alone (kernel.SGDStep). The
// diff's storage is used here without being handed out (Blob.grad; the
// blob is not deferred in the other cases, deferUpdatedDiff saw to it
// before the pass).
func (s *Solver) updateSpanFrom(w int, c sgdSpan, grad []float32) {
	b := s.net.learnable[c.k]
	data := b.DataSlice()[c.lo:c.hi]
	wd := s.stepWD
	if s.sgdOnePass() {
		all := s.histSlices[c.k][0]
		hist := all[c.lo:c.hi]
		if grad != nil && b.diffDeferred() {
			var next []float32
			if lo, hi := c.lo+c.ahead, c.hi+c.ahead; c.ahead != 0 && lo >= 0 && hi <= len(all) {
				next = all[lo:hi]
			}
			kernel.SGDStepAhead(data, grad, hist, next, wd*s.decayMult[c.k], s.sgdRate*s.lrMult[c.k], s.stepMomentum)
			return
		}
		diff := b.grad()[c.lo:c.hi]
		if grad != nil {
			kernel.SGDStepTo(data, grad, hist, diff, wd*s.decayMult[c.k], s.sgdRate*s.lrMult[c.k], s.stepMomentum)
			return
		}
		kernel.SGDStep(data, diff, hist, wd*s.decayMult[c.k], s.sgdRate*s.lrMult[c.k], s.stepMomentum)
		return
	}
	diff := b.grad()[c.lo:c.hi]
	if grad != nil {
		copy(diff, grad)
	}
	s.regularize(data, diff, wd*s.decayMult[c.k])
	hist := s.spanHist[w]
	for set := range hist {
		hist[set] = s.histSlices[c.k][set][c.lo:c.hi]
	}
	s.rule.Apply(s.param, s.iter, s.sgdRate*s.lrMult[c.k], diff, hist)
	kernel.Axpy(-1, diff, data)
}
