package caffe

import (
	"fmt"
	"sync"
)

// Layers that split their work over threads (LayerEnv.Threads) run the
// parts on a shared set of worker goroutines, started on first use and
// then kept for the life of the program. Handing a part to a worker
// allocates nothing, so multi-threaded layers stay allocation-free.

// layerPart is one part of a layer's work: fn(w) on a worker.
type layerPart struct {
	fn       func(w int)
	w        int
	wg       *sync.WaitGroup
	panicked any
}

func (p *layerPart) run() {
	defer p.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			p.panicked = r
		}
	}()
	p.fn(p.w)
}

var (
	layerWorkersMu sync.Mutex
	layerWorkers   int
	layerParts     = make(chan *layerPart)
)

func ensureLayerWorkers(n int) {
	layerWorkersMu.Lock()
	defer layerWorkersMu.Unlock()
	for ; layerWorkers < n; layerWorkers++ {
		go func() {
			for p := range layerParts {
				p.run()
			}
		}()
	}
}

// parallelRunner runs fn(0), …, fn(n−1) at once, fn(0) on the calling
// goroutine. A layer keeps one runner, and fn should be a function value
// made once (at Setup), so that running allocates nothing.
type parallelRunner struct {
	wg    sync.WaitGroup
	parts []layerPart
}

func (r *parallelRunner) run(n int, fn func(w int)) {
	if n <= 1 {
		fn(0)
		return
	}
	if len(r.parts) < n {
		r.parts = make([]layerPart, n)
	}
	ensureLayerWorkers(n - 1)
	r.wg.Add(n)
	for w := 1; w < n; w++ {
		p := &r.parts[w]
		*p = layerPart{fn: fn, w: w, wg: &r.wg}
		layerParts <- p
	}
	p := &r.parts[0]
	*p = layerPart{fn: fn, w: 0, wg: &r.wg}
	p.run()
	r.wg.Wait()
	for w := range n {
		if v := r.parts[w].panicked; v != nil {
			clear(r.parts)
			panic(fmt.Sprintf("caffe: part %d of %d of a layer's work: %v", w+1, n, v))
		}
	}
	for w := range n {
		r.parts[w].fn = nil
	}
}
