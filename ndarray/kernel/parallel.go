package kernel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

const (
	// parallelMinWork is the smallest product, in multiply-adds, that
	// SgemmParallel splits: below it the hand-off costs more than the
	// other cores gain.
	parallelMinWork = 64 * 64 * 64
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
type gemmCall struct {
	g              *gemmImpl
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int

	byRows bool // split along M rather than N
	size   int  // extent of every part but the last
	parts  int
	next   atomic.Int64 // the next part to claim
	wg     sync.WaitGroup

	mu       sync.Mutex
	panicked any // the first panic of a part
}

var gemmCalls = sync.Pool{New: func() any { return new(gemmCall) }}

// The worker goroutines wait for calls to take parts of. They are started
// on demand, so that a call finds as many idle workers as it wants even
// when other calls keep some busy, and then live for the rest of the
// program.
var (
	idleWorkers atomic.Int64
	sharedCalls = make(chan *gemmCall)
)

func ensureIdleWorkers(n int) {
	for i := idleWorkers.Load(); i < int64(n); i++ {
		idleWorkers.Add(1)
		go func() {
			for call := range sharedCalls {
				idleWorkers.Add(-1)
				call.work()
				idleWorkers.Add(1)
			}
		}()
	}
}

// work claims and runs parts until none is left. A panic stops this
// goroutine's share and is reported by the caller.
func (call *gemmCall) work() {
	defer call.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			call.mu.Lock()
			if call.panicked == nil {
				call.panicked = r
			}
			call.mu.Unlock()
		}
	}()
	for {
		i := int(call.next.Add(1)) - 1
		if i >= call.parts {
			return
		}
		call.run(i)
	}
}

// run computes part i: a block of columns (or rows) of C.
func (call *gemmCall) run(i int) {
	lo := i * call.size
	a, b, c := call.a, call.b, call.c
	m, n := call.m, call.n
	if call.byRows {
		m = min(m-lo, call.size)
		c = c[lo*call.ldc:]
		if call.transA {
			a = a[lo:]
		} else {
			a = a[lo*call.lda:]
		}
	} else {
		n = min(n-lo, call.size)
		c = c[lo:]
		if call.transB {
			b = b[lo*call.ldb:]
		} else {
			b = b[lo:]
		}
	}
	call.g.sgemm(call.transA, call.transB, m, n, call.k, call.alpha, a, call.lda, b, call.ldb, call.beta, c, call.ldc)
}

// parallel splits the product along N, or along M when M is the larger
// side, into parts that are multiples of the microkernel tile, and runs
// them on the calling goroutine and up to threads-1 workers.
func (g *gemmImpl) parallel(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if threads <= 1 || m*n*k < parallelMinWork || runtime.GOMAXPROCS(0) == 1 {
		g.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
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
	parts := min(threads*perThread, (extent+align-1)/align)
	size := split(extent, (extent+parts-1)/parts, align)
	parts = (extent + size - 1) / size
	if parts <= 1 {
		g.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	extra := min(threads, parts) - 1 // workers besides the calling goroutine

	call := gemmCalls.Get().(*gemmCall)
	defer gemmCalls.Put(call)
	call.g, call.transA, call.transB = g, transA, transB
	call.m, call.n, call.k, call.alpha, call.beta = m, n, k, alpha, beta
	call.a, call.b, call.c, call.lda, call.ldb, call.ldc = a, b, c, lda, ldb, ldc
	call.byRows, call.size, call.parts = byRows, size, parts
	call.next.Store(0)
	call.panicked = nil

	ensureIdleWorkers(extra)
	call.wg.Add(extra + 1)
	for range extra {
		sharedCalls <- call
	}
	call.work()
	call.wg.Wait()
	p := call.panicked
	call.a, call.b, call.c, call.panicked = nil, nil, nil, nil // drop the caller's slices
	if p != nil {
		panic(fmt.Sprintf("kernel: SgemmParallel: %v", p))
	}
}
