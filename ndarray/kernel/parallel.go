package kernel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// parallelMinWork is the smallest product, in multiply-adds, that
// SgemmParallel splits: below it the hand-off, which can take 100 µs when
// the worker's thread sleeps, costs more than the other cores gain. Tests
// lower it to split small products.
var parallelMinWork = 128 * 128 * 128

const (
	// parallelChunk is the extent (columns of C, or rows when splitting
	// by rows) below which SgemmParallel does not cut more parts than
	// threads: every part packs the whole of the other operand again,
	// which costs about 16/extent of the part's multiply time.
	parallelChunk = 512
	// parallelPartsPerThread bounds the parts per goroutine. More parts
	// than goroutines let the goroutines that run fast (on a core no other
	// process wants) take over the work of the slow ones.
	parallelPartsPerThread = 4
)

// gemmCall is one SgemmParallel call: the product, split along N (or M)
// into parts that the participating goroutines claim one at a time.
//
// The calls are reused, and a worker may take a call from the queue after
// it has finished and been reused. So a call carries a generation, and a
// part is claimed by a compare-and-swap on one word holding the
// generation, the number of parts and the next part: a worker that holds
// an old generation, or that finds every part claimed, touches nothing
// else, and the fields of a call do not change while any of its parts
// runs.
type gemmCall struct {
	g              *gemmImpl
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int

	byRows bool // split along M rather than N
	size   int  // extent of every part but the last

	gen     uint32        // owned by the calling goroutine
	state   atomic.Uint64 // gen<<32 | parts<<16 | next part to claim
	pending atomic.Int64  // parts not yet finished
	done    chan struct{} // receives once when pending reaches 0

	mu       sync.Mutex
	panicked any // the first panic of a part
}

// callRef is a call as queued for the workers.
type callRef struct {
	call *gemmCall
	gen  uint32
}

// gemmCalls holds the calls not in use (kept across garbage collections,
// as the workspaces).
var gemmCalls freeList[gemmCall]

func newGemmCall(c *gemmCall) { c.done = make(chan struct{}, 1) }

// The worker goroutines wait for calls to take parts of. They are started
// on demand, so that a call finds as many idle workers as it wants even
// when other calls keep some busy, and then live for the rest of the
// program.
var (
	idleWorkers atomic.Int64
	sharedCalls = make(chan callRef, 64)
)

func ensureIdleWorkers(n int) {
	for i := idleWorkers.Load(); i < int64(n); i++ {
		idleWorkers.Add(1)
		workspaces.reserve(1)
		go worker()
	}
}

// spinWait is how long a goroutine that waits for a call (a worker) or
// for the other parts of its call (the caller) keeps polling before it
// blocks. Waking a blocked goroutine's thread can take 100 µs or more in a
// virtual machine, as long as a part of a mid-sized product, and products
// come in runs (the layers of a net), so a worker that keeps polling a
// little takes the next call at once. The polling is kept short because it
// takes CPU time from other processes when the cores are oversubscribed.
const spinWait = 50 * time.Microsecond

func worker() {
	for ref := range sharedCalls {
		for ok := true; ok; {
			ref.call.work(ref.gen, true)
			ref, ok = pollCalls()
		}
	}
}

// pollCalls polls the queue for spinWait.
func pollCalls() (callRef, bool) {
	for deadline := time.Now().Add(spinWait); time.Now().Before(deadline); {
		select {
		case ref := <-sharedCalls:
			return ref, true
		default:
			runtime.Gosched()
		}
	}
	return callRef{}, false
}

// claim returns the next unclaimed part of generation gen, if any.
func (call *gemmCall) claim(gen uint32) (int, bool) {
	for {
		s := call.state.Load()
		next, parts := int(s&0xffff), int(s>>16&0xffff)
		if uint32(s>>32) != gen || next >= parts {
			return 0, false
		}
		if call.state.CompareAndSwap(s, s+1) {
			return next, true
		}
	}
}

// work claims and runs parts of generation gen until none is left; a
// worker counts itself busy while it runs a part (idleWorkers).
func (call *gemmCall) work(gen uint32, worker bool) {
	for {
		i, ok := call.claim(gen)
		if !ok {
			return
		}
		if worker {
			idleWorkers.Add(-1)
		}
		call.runPart(i, worker)
	}
}

// runPart runs part i, records a panic for the caller to report, and
// signals done when it finishes the last part. A worker counts itself
// idle again before its part counts as finished: a caller that then
// starts its next product finds it idle, rather than starting another
// (which would allocate) while it returns to its queue.
func (call *gemmCall) runPart(i int, worker bool) {
	defer func() {
		if r := recover(); r != nil {
			call.mu.Lock()
			if call.panicked == nil {
				call.panicked = r
			}
			call.mu.Unlock()
		}
		if worker {
			idleWorkers.Add(1)
		}
		if call.pending.Add(-1) == 0 {
			call.done <- struct{}{}
		}
	}()
	call.run(i)
}

// run computes part i: a block of columns (or rows) of C.
func (call *gemmCall) run(i int) {
	s := GemmSplit{byRows: call.byRows, size: call.size}
	call.g.part(s, i, call.transA, call.transB, call.m, call.n, call.k, call.alpha, call.a, call.lda, call.b, call.ldb, call.beta, call.c, call.ldc)
}

// GemmSplit is how SgemmParallel cuts a product into parts along M or N
// (never along K, so every element of C is summed in the same order as by
// Sgemm). SplitSgemm makes one and SgemmPart computes one part, so that a
// caller with goroutines of its own (a layer of a net) can run the parts
// of a product on them, split exactly as SgemmParallel would.
type GemmSplit struct {
	Parts  int  // the number of parts; 1 when the product is not split
	byRows bool // split along M rather than N
	size   int  // extent of every part but the last
}

// SplitSgemm returns how SgemmParallel splits an m×n×k product over
// threads goroutines.
func SplitSgemm(threads, m, n, k int) GemmSplit { return active.split(threads, m, n, k) }

// SgemmPart computes part i < s.Parts of the product that SgemmParallel
// would compute with the split s (from SplitSgemm with the same m, n, k):
// the parts may run in any order and at once on different goroutines.
func SgemmPart(s GemmSplit, i int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("SgemmPart", transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if i < 0 || i >= s.Parts {
		panic(fmt.Sprintf("kernel: SgemmPart: part %d of %d", i, s.Parts))
	}
	if s.Parts == 1 {
		active.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	active.part(s, i, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// part computes part i of a split product with the operations that sgemm
// runs on those rows (columns) of the whole product, in the same order:
// every part takes the path (gemv's or the blocked product) of the whole
// product, so that a part of one row or column does not take gemv's
// single-row or single-column path, which sums in another order.
func (g *gemmImpl) part(s GemmSplit, i int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	path := gemvPathOf(transA, transB, m, n, ldb)
	lo := i * s.size
	if s.byRows {
		m = min(m-lo, s.size)
		c = c[lo*ldc:]
		if transA {
			a = a[lo:]
		} else {
			a = a[lo*lda:]
		}
	} else {
		n = min(n-lo, s.size)
		c = c[lo:]
		if transB {
			b = b[lo*ldb:]
		} else {
			b = b[lo:]
		}
	}
	if m == 0 || n == 0 || k == 0 || alpha == 0 {
		g.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	g.product(path, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// split decides how parallel cuts a product.
func (g *gemmImpl) split(threads, m, n, k int) GemmSplit {
	if threads <= 1 || m*n*k < parallelMinWork || runtime.GOMAXPROCS(0) == 1 {
		return GemmSplit{Parts: 1}
	}
	byRows := m > n
	extent, align := n, g.nr
	if byRows {
		extent, align = m, g.mr
	}
	// More goroutines than Ps gain nothing. Every goroutine gets the same
	// number of parts, so that equal speeds finish together.
	threads = min(threads, runtime.GOMAXPROCS(0))
	perThread := max(1, min(extent/parallelChunk/threads, parallelPartsPerThread))
	parts := min(threads*perThread, (extent+align-1)/align, 0xffff)
	size := split(extent, (extent+parts-1)/parts, align)
	parts = (extent + size - 1) / size
	if parts <= 1 {
		return GemmSplit{Parts: 1}
	}
	return GemmSplit{Parts: parts, byRows: byRows, size: size}
}

// parallel splits the product along N, or along M when M is the larger
// side, into parts that are multiples of the microkernel tile, and runs
// them on the calling goroutine and up to threads-1 workers.
func (g *gemmImpl) parallel(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sp := g.split(threads, m, n, k)
	parts := sp.Parts
	if parts <= 1 {
		g.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	threads = min(threads, runtime.GOMAXPROCS(0))
	extra := min(threads, parts) - 1 // workers besides the calling goroutine

	call := gemmCalls.get(newGemmCall)
	defer gemmCalls.put(call)
	call.g, call.transA, call.transB = g, transA, transB
	call.m, call.n, call.k, call.alpha, call.beta = m, n, k, alpha, beta
	call.a, call.b, call.c, call.lda, call.ldb, call.ldc = a, b, c, lda, ldb, ldc
	call.byRows, call.size = sp.byRows, sp.size
	call.panicked = nil
	call.pending.Store(int64(parts))
	call.gen++
	gen := call.gen
	call.state.Store(uint64(gen)<<32 | uint64(parts)<<16) // publishes the call

	ensureIdleWorkers(extra)
	for range extra {
		select {
		case sharedCalls <- callRef{call, gen}:
		default: // the queue is full: the goroutines at hand do the work
		}
	}
	call.work(gen, false)
	// Wait for the parts that workers run: poll a little, then block.
	for deadline := time.Now().Add(spinWait); call.pending.Load() != 0 && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	<-call.done
	p := call.panicked
	call.a, call.b, call.c, call.panicked = nil, nil, nil, nil // drop the caller's slices
	if p != nil {
		panic(fmt.Sprintf("kernel: SgemmParallel: %v", p))
	}
}
