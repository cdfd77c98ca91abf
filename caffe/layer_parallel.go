package caffe

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// Layers that split their work over threads (LayerEnv.Threads) cut it into
// parts, which the calling goroutine and pooled goroutines claim one at a
// time: a goroutine that gets a core to itself takes over the parts of one
// that does not, so a net on a shared machine does not wait for a thread
// that another process holds back. The pooled goroutines are started on
// first use and then kept for the life of the program; handing them work
// allocates nothing, so multi-threaded layers stay allocation-free.

// parallelRunner runs fn(w, p) for the parts p = 0, …, parts−1 of a
// layer's work on up to a given number of goroutines, the calling one
// among them; w < workers identifies the goroutine (for its scratch
// buffers) and no two goroutines run with the same w at once. A layer
// keeps one runner, and fn should be a function value made once (at
// construction), so that running allocates nothing.
//
// The parts are dealt out in contiguous shares, one per goroutine (the
// first to the calling one), as span cuts them; a goroutine runs its own
// share from the front, then takes parts from the back of the others'.
// Layers that cut their work the same way (the images of a batch, the
// rows of a weight matrix) thus hand the same part to the same goroutine
// from one layer and one pass to the next, and a goroutine finds in its
// core's cache what it wrote or read there before, while a goroutine that
// does not get a core still has its parts taken over.
//
// A pooled goroutine that was handed a part of one run but starts only
// after that run is over must not touch the next: the runner counts its
// runs, and a part is claimed by a compare-and-swap on a word holding the
// run's number and a share's next and end parts, so that a goroutine
// holding an old number reads nothing else.
type parallelRunner struct {
	fn  func(w, p int)
	gen uint32 // owned by the calling goroutine
	// started is the number of the run start began and finish has not
	// ended, 0 for none.
	started uint32
	stats   runStats // accounting (parstats build tag; else empty)
	// meta is gen<<32 | metaHelps | the number of shares; shares[i] is
	// gen<<32 | next part<<16 | end part of share i.
	meta    atomic.Uint64
	shares  [maxShares]atomic.Uint64
	pending atomic.Int64  // parts not yet finished
	done    chan struct{} // receives once per run, when pending reaches 0

	mu       sync.Mutex
	panicked any // the first panic of a part

	// Tasks that the parts offer to the goroutines left without parts
	// (offer): helpFn runs one (set by the layer before run, nil for
	// none; a run takes offers, metaHelps, when it is set), helps[k] is
	// gen<<32 | state<<30 | the task's argument, and nHelps counts the
	// slots the run's offers took.
	helpFn func(w, a int)
	helps  [maxHelps]atomic.Uint64
	nHelps atomic.Int32
}

// maxShares is the most shares a run deals its parts into; goroutines
// beyond it share the shares.
const maxShares = 64

// maxHelps is the most tasks a run's parts offer (offer); the parts run
// those beyond it themselves.
const maxHelps = 16

// metaHelps marks a run that takes offers in parallelRunner.meta.
const metaHelps = 1 << 16

// helpPart is the part number the accounting gives offered tasks (no
// part's: a run has at most 0xffff parts).
const helpPart = 1 << 16

// The states of an offered task: offered, taken by a goroutine, done.
const (
	helpOffered = 1
	helpTaken   = 2
	helpDone    = 3
)

// runnerRef is a run handed to a pooled goroutine: the runner, the run's
// number and the goroutine index it takes.
type runnerRef struct {
	r   *parallelRunner
	gen uint32
	w   int
}

var (
	layerPoolMu   sync.Mutex
	layerPoolSize int
	layerWork     = make(chan runnerRef, 64)
)

// layerSpin is how long a pooled goroutine that finished its parts keeps
// polling for more work before it blocks, and how long the calling
// goroutine polls for the others to finish before it blocks: layers run in
// sequences, and waking a blocked goroutine's thread can take longer than
// a small layer.
// It is kept short because it takes CPU time from other processes when
// the cores are oversubscribed.
const layerSpin = 50 * time.Microsecond

// passSpin is how long a pooled goroutine polls while a net's pass
// (Net.Forward, Net.Backward) or a solver's steps run: the work between
// two layers that split theirs (a data layer, a ReLU, a small inner
// product, the loss, clearing the gradients) runs on the calling goroutine
// alone, often for longer than layerSpin, and a pooled goroutine that
// blocked meanwhile is woken too late for the next layer's parts. It is
// bounded so that a pass that hands out no more work soon releases the
// core, and so that a goroutine whose partner the system has descheduled
// (other processes on the cores: their time slices last milliseconds)
// blocks, leaving its core to that partner, instead of polling for it:
// on a loaded machine two-thread LeNet steps took 20-27% less time on
// average with 500 µs than with 1 ms (CIFAR-10 quick 0-13%). Most
// stretches a pass waits through on a quiet machine (serial layers, the
// last part of a run) take less; the longest, the wait for the small last
// block of CIFAR-10 quick's chained convolutions' backward run (about
// 0.7 ms), now ends in a block and a wake-up.
const passSpin = 500 * time.Microsecond

// passesRunning counts the passes under way (beginPass, endPass).
var passesRunning atomic.Int32

// beginPass marks a pass as running, so that the pooled goroutines keep
// polling for up to passSpin; endPass ends it.
func beginPass() { passesRunning.Add(1) }

func endPass() { passesRunning.Add(-1) }

// ensureLayerPool starts pooled goroutines until there are n.
func ensureLayerPool(n int) {
	layerPoolMu.Lock()
	defer layerPoolMu.Unlock()
	for ; layerPoolSize < n; layerPoolSize++ {
		kernel.ReserveWorkspaces(1)
		go layerPoolGoroutine()
	}
}

// layerPoolGoroutine runs the parts of the runs it is handed.
func layerPoolGoroutine() {
	for ref := range layerWork {
		for ok := true; ok; {
			ref.r.work(ref.gen, ref.w)
			ref, ok = pollLayerWork()
		}
	}
}

// pollLayerWork polls the queue for layerSpin, or for passSpin while a
// pass runs.
func pollLayerWork() (runnerRef, bool) {
	start := time.Now()
	for now := start; now.Sub(start) < layerSpin || passesRunning.Load() > 0 && now.Sub(start) < passSpin; now = time.Now() {
		select {
		case ref := <-layerWork:
			return ref, true
		default:
			kernel.SpinYield()
		}
	}
	return runnerRef{}, false
}

// run calls fn(w, p) for every part p < parts (at most 65535) on up to
// workers goroutines and returns when all have finished. A panic in a
// part is re-raised here.
func (r *parallelRunner) run(workers, parts int, fn func(w, p int)) {
	r.stats.begin(parts, workers)
	if statsSerial && workers > 1 && parts > 1 {
		r.runSerial(workers, parts, fn)
		return
	}
	if workers <= 1 || parts <= 1 {
		for p := range parts {
			r.stats.partStart(0, p)
			fn(0, p)
			r.stats.partEnd(0, p)
		}
		r.stats.end()
		return
	}
	gen := r.publish(workers, parts, fn, false)
	r.work(gen, 0)
	r.stats.ownDone()
	r.wait()
}

// runSerial runs the parts one after the other on the calling goroutine,
// each as the goroutine whose share run deals it to (statsSerial), the
// shares' first parts first, then their second ones, and so on, in the
// order in which the goroutines would begin them (a part that waits for
// another share's first part, as an inner product's weight gradient
// waits for its input gradient's blocks, finds it done).
func (r *parallelRunner) runSerial(workers, parts int, fn func(w, p int)) {
	shares := min(workers, parts, maxShares)
	for k, more := 0, true; more; k++ {
		more = false
		for i := range shares {
			lo, hi := span(i, shares, parts)
			if p := lo + k; p < hi {
				r.stats.partStart(i, p)
				fn(i, p)
				r.stats.partEnd(i, p)
				more = true
			}
		}
	}
	r.stats.end()
}

// start begins a run of fn's parts as run does, but deals them all to the
// pooled goroutines and returns at once, so that they work while the
// calling goroutine does something else; finish, which the caller must
// call before r runs again, runs the parts that none has begun yet and
// waits for the others. With one worker, or one part, start runs the
// parts itself.
func (r *parallelRunner) start(workers, parts int, fn func(w, p int)) {
	if statsSerial && workers > 1 && parts >= 1 {
		// As a pooled goroutine would, at once.
		r.stats.begin(parts, workers)
		r.stats.startedAhead()
		for p := range parts {
			r.stats.partStart(1, p)
			fn(1, p)
			r.stats.partEnd(1, p)
		}
		r.stats.end()
		return
	}
	if workers <= 1 || parts < 1 {
		for p := range parts {
			fn(0, p)
		}
		return
	}
	r.started = r.publish(workers, parts, fn, true)
}

// finish ends a run that start began, if any.
func (r *parallelRunner) finish() {
	gen := r.started
	if gen == 0 {
		return
	}
	r.started = 0
	r.work(gen, 0)
	r.wait()
}

// publish sets a run up and hands it to workers−1 pooled goroutines; the
// calling goroutine's share is empty when others is set. It returns the
// run's number.
func (r *parallelRunner) publish(workers, parts int, fn func(w, p int), others bool) uint32 {
	if r.done == nil {
		r.done = make(chan struct{}, 1)
	}
	workers, parts = min(workers, parts+btoi(others)), min(parts, 0xffff)
	r.fn, r.panicked = fn, nil
	r.nHelps.Store(0)
	r.pending.Store(int64(parts))
	r.gen++
	if r.gen == 0 {
		r.gen++ // 0 is no run (started)
	}
	gen := r.gen
	shares := min(workers, maxShares)
	for i := range shares {
		lo, hi := span(i, shares, parts)
		if others {
			lo, hi = 0, 0
			if i > 0 {
				lo, hi = span(i-1, shares-1, parts)
			}
		}
		r.shares[i].Store(uint64(gen)<<32 | uint64(lo)<<16 | uint64(hi))
	}
	m := uint64(gen)<<32 | uint64(shares)
	if r.helpFn != nil {
		m |= metaHelps
	}
	r.meta.Store(m) // publishes the run
	ensureLayerPool(workers - 1)
	for w := 1; w < workers; w++ {
		select {
		case layerWork <- runnerRef{r, gen, w}:
		default: // the queue is full: the goroutines at hand do the work
		}
	}
	return gen
}

// wait waits, once the calling goroutine has run its parts, for the
// others to finish theirs, and re-raises a part's panic.
func (r *parallelRunner) wait() {
	spin := layerSpin
	if passesRunning.Load() > 0 {
		// Within a pass the caller polls as long as the pooled
		// goroutines do: blocked, it would be woken by the goroutine
		// that finishes the last part, on that goroutine's thread,
		// and the two would swap cores, each then finding the other's
		// share of the data in its cache.
		spin = passSpin
	}
	for deadline := time.Now().Add(spin); r.pending.Load() != 0 && time.Now().Before(deadline); {
		kernel.SpinYield()
	}
	<-r.done
	r.stats.end()
	r.fn = nil
	// Parts outside a published run (one goroutine) offer nothing.
	r.meta.Store(r.meta.Load() &^ metaHelps)
	if v := r.panicked; v != nil {
		r.panicked = nil
		panic(fmt.Sprintf("caffe: a part of a layer's work: %v", v))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// claim returns an unclaimed part of run gen for goroutine w, if any: the
// next of its own share, else the last of another's, the nearest first.
func (r *parallelRunner) claim(gen uint32, w int) (int, bool) {
	m := r.meta.Load()
	if uint32(m>>32) != gen {
		return 0, false
	}
	shares := int(m & 0xffff)
	own := w % shares
	for {
		sh := &r.shares[own]
		s := sh.Load()
		next, end := int(s>>16&0xffff), int(s&0xffff)
		if uint32(s>>32) != gen || next >= end {
			break
		}
		if sh.CompareAndSwap(s, s+1<<16) {
			return next, true
		}
	}
	for i := 1; i < shares; i++ {
		sh := &r.shares[(own+i)%shares]
		for {
			s := sh.Load()
			next, end := int(s>>16&0xffff), int(s&0xffff)
			if uint32(s>>32) != gen || next >= end {
				break
			}
			if sh.CompareAndSwap(s, s-1) {
				return end - 1, true
			}
		}
	}
	return 0, false
}

// claimed reports whether every part of the current run has been
// claimed: a goroutine that ends its parts finds none to take.
func (r *parallelRunner) claimed() bool {
	m := r.meta.Load()
	for i := range int(m & 0xffff) {
		s := r.shares[i].Load()
		if uint32(s>>32) == uint32(m>>32) && s>>16&0xffff < s&0xffff {
			return false
		}
	}
	return true
}

// work claims and runs parts of run gen as goroutine w until none is
// left, then the tasks the others' parts offer (help).
func (r *parallelRunner) work(gen uint32, w int) {
	for {
		p, ok := r.claim(gen, w)
		if !ok {
			break
		}
		r.runPart(w, p)
	}
	if m := r.meta.Load(); uint32(m>>32) == gen && m&metaHelps != 0 {
		r.help(gen, w)
	}
}

// A part may hand a piece of its work that nothing else in the part
// waits for (a convolution's weight gradient of an image block, beside
// the input gradient) to a goroutine that has no part left, at the end of
// a run whose parts are few and long: it offers the task (offer), does
// the rest of its work, and then runs the task itself unless another
// goroutine took it, else waits for that one to finish it (reclaim).
// Within a run, while every goroutine has parts, the offering part
// takes its task back; at the end, the goroutine whose parts are done
// shares the last part's work instead of waiting for it.

// offer makes task a (a < 1<<30) of a part of the current run available
// to the goroutines without parts: r.helpFn(w, a) runs it as goroutine
// w. It returns the task's slot for reclaim, −1 when the run takes no
// offers (one goroutine, or no helpFn) or has no slot left.
func (r *parallelRunner) offer(a int) int {
	m := r.meta.Load()
	if m&metaHelps == 0 {
		return -1
	}
	k := int(r.nHelps.Add(1)) - 1
	if k >= maxHelps {
		return -1
	}
	r.pending.Add(1)
	r.helps[k].Store(m>>32<<32 | helpOffered<<30 | uint64(a))
	return k
}

// reclaim ends the task a part (on goroutine w) offered in slot k: it
// reports whether the part must run it itself (k < 0, or no goroutine
// took it), else waits until the goroutine that took it has run it.
func (r *parallelRunner) reclaim(w, k int) bool {
	if k < 0 {
		return true
	}
	h := &r.helps[k]
	s := h.Load()
	if !helpForced && s>>30&3 == helpOffered && h.CompareAndSwap(s, s&^(3<<30)|helpTaken<<30) {
		r.pending.Add(-1) // the part itself is pending still
		return true
	}
	// Meanwhile, the tasks other parts offer.
	for gen := uint32(s >> 32); h.Load()>>30&3 != helpDone; {
		if !r.takeHelp(gen, w, k) {
			kernel.SpinYield()
		}
	}
	return false
}

// taken reports whether a goroutine took the task offered in slot k
// (k ≥ 0).
func (r *parallelRunner) taken(k int) bool {
	return k >= 0 && r.helps[k].Load()>>30&3 != helpOffered
}

// helpForced makes the parts wait for another goroutine to take the
// tasks they offer, and the goroutines without parts poll for them until
// the run ends (tests).
var helpForced = false

// help runs, as goroutine w, the tasks that the parts of run gen offer,
// until the run ends or none has been offered for passSpin.
func (r *parallelRunner) help(gen uint32, w int) {
	var idle time.Time
	for r.pending.Load() > 0 && uint32(r.meta.Load()>>32) == gen {
		if r.takeHelp(gen, w, -1) {
			idle = time.Time{}
			continue
		}
		if now := time.Now(); idle.IsZero() {
			idle = now
		} else if now.Sub(idle) > passSpin && !helpForced {
			return
		}
		kernel.SpinYield()
	}
}

// takeHelp takes and runs a task of run gen that a part offered, other
// than the one in slot skip, if any, and reports whether it did.
func (r *parallelRunner) takeHelp(gen uint32, w, skip int) bool {
	for k := range min(int(r.nHelps.Load()), maxHelps) {
		if k == skip {
			continue
		}
		h := &r.helps[k]
		s := h.Load()
		if uint32(s>>32) != gen || s>>30&3 != helpOffered || !h.CompareAndSwap(s, s&^(3<<30)|helpTaken<<30) {
			continue
		}
		r.runHelp(w, h, int(s&(1<<30-1)))
		return true
	}
	return false
}

// runHelp runs offered task a as goroutine w and marks its slot h done.
func (r *parallelRunner) runHelp(w int, h *atomic.Uint64, a int) {
	r.stats.partStart(w, helpPart)
	defer func() { r.ended(w, helpPart, h, recover()) }()
	r.helpFn(w, a)
}

// runPart runs part p, records a panic for the caller, and signals done
// when it finishes the run's last part.
func (r *parallelRunner) runPart(w, p int) {
	r.stats.partStart(w, p)
	defer func() { r.ended(w, p, nil, recover()) }()
	r.fn(w, p)
}

// ended accounts for the end of part p on goroutine w (an offered task's
// in slot h), records the panic v (nil for none), marks the task done
// and signals done when the run has nothing left pending.
func (r *parallelRunner) ended(w, p int, h *atomic.Uint64, v any) {
	r.stats.partEnd(w, p)
	if v != nil {
		r.mu.Lock()
		if r.panicked == nil {
			r.panicked = v
		}
		r.mu.Unlock()
	}
	if h != nil {
		h.Store(h.Load()&^(3<<30) | helpDone<<30)
	}
	if r.pending.Add(-1) == 0 {
		r.done <- struct{}{}
	}
}

// span returns the range [lo, hi) of n items that part p of parts covers.
func span(p, parts, n int) (lo, hi int) { return p * n / parts, (p + 1) * n / parts }
