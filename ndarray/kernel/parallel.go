package kernel

import (
	"fmt"
	"sync"
)

// parallelMinWork is the smallest product, in multiply-adds, that
// SgemmParallel splits: below it the goroutine hand-off costs more than the
// second core gains.
const parallelMinWork = 64 * 64 * 64

// gemmTask is one goroutine's share of a parallel product.
type gemmTask struct {
	g              *gemmImpl
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
	wg             *sync.WaitGroup
	panicked       any
}

func (t *gemmTask) run() {
	defer t.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			t.panicked = r
		}
	}()
	t.g.sgemm(t.transA, t.transB, t.m, t.n, t.k, t.alpha, t.a, t.lda, t.b, t.ldb, t.beta, t.c, t.ldc)
}

// parallelCall is the reusable state of one SgemmParallel call.
type parallelCall struct {
	wg    sync.WaitGroup
	tasks []gemmTask
}

var parallelCalls = sync.Pool{New: func() any { return new(parallelCall) }}

// The worker goroutines are started on first use and then live for the
// rest of the program, waiting on tasks.
var (
	workersMu sync.Mutex
	workers   int
	tasks     = make(chan *gemmTask)
)

func ensureWorkers(n int) {
	workersMu.Lock()
	defer workersMu.Unlock()
	for ; workers < n; workers++ {
		go func() {
			for t := range tasks {
				t.run()
			}
		}()
	}
}

// parallel splits the product into at most threads parts along N (or
// along M when M is the larger side), each a multiple of the microkernel
// tile, runs the first on the calling goroutine and the others on workers.
func (g *gemmImpl) parallel(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if threads <= 1 || m*n*k < parallelMinWork {
		g.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	byRows := m > n
	extent, align := n, g.nr
	if byRows {
		extent, align = m, g.mr
	}
	parts := min(threads, (extent+align-1)/align)
	size := split(extent, (extent+parts-1)/parts, align)
	parts = (extent + size - 1) / size
	if parts <= 1 {
		g.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}

	call := parallelCalls.Get().(*parallelCall)
	defer parallelCalls.Put(call)
	if cap(call.tasks) < parts {
		call.tasks = make([]gemmTask, parts)
	}
	call.tasks = call.tasks[:parts]
	for i := range call.tasks {
		lo := i * size
		hi := min(extent, lo+size)
		t := &call.tasks[i]
		*t = gemmTask{g: g, transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, beta: beta,
			a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, wg: &call.wg}
		if byRows {
			t.m = hi - lo
			t.c = c[lo*ldc:]
			if transA {
				t.a = a[lo:]
			} else {
				t.a = a[lo*lda:]
			}
		} else {
			t.n = hi - lo
			t.c = c[lo:]
			if transB {
				t.b = b[lo*ldb:]
			} else {
				t.b = b[lo:]
			}
		}
	}
	ensureWorkers(parts - 1)
	call.wg.Add(parts)
	for i := 1; i < parts; i++ {
		tasks <- &call.tasks[i]
	}
	call.tasks[0].run()
	call.wg.Wait()
	for i := range call.tasks {
		if p := call.tasks[i].panicked; p != nil {
			clear(call.tasks)
			panic(fmt.Sprintf("kernel: SgemmParallel: part %d of %d: %v", i+1, parts, p))
		}
	}
	clear(call.tasks) // drop the references to the caller's slices
}
