package caffe

import (
	"slices"
	"sync/atomic"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// A MemoryData layer whose feeder fills a batch in pieces
// (SetFeederInPieces), followed by chained convolution groups that read
// its data top (Net.forwardChain), is fed within their run: the batch is
// cut into one piece per share of the run's image blocks (the blocks that
// the parallel runner deals to one goroutine), and the first part that
// convolves a block of a piece feeds the pieces up to that one, in order,
// those that no other goroutine fed yet. Each goroutine thus writes the
// images it convolves in its own core's cache: fed on the calling
// goroutine, the other goroutine's images were read from the caller's
// core, and the caller's writes of them, the next iteration, had to take
// them back from the other core's cache (LeNet at two threads: 15 µs to
// write the second half of a batch of 64, against 1.4 µs for the first).
// The run's parts also take over the packing of the convolutions'
// weights, which the pooled goroutines otherwise do ahead while the
// calling one runs the data layer (net_prep.go): with the data layer in
// the run nothing would hide it, so the calling goroutine's first part
// packs them, the first convolution's and then the second's, while the
// others feed their pieces and convolve their first blocks, and the
// others wait for each before they use it (the calling goroutine, which
// has the shorter share of the work at two threads, waited for the other
// at the end).
// The feeder is called in the same order over the same storage, so every
// value is the same.

// feedInPieces turns the feeding in pieces on (tests and benchmarks
// compare it off).
var feedInPieces = true

// pieceFeed is a batch fed in pieces within a chained forward run.
type pieceFeed struct {
	md          *MemoryData
	data, label []float32 // the tops' storage
	size        int       // values per image
	lanes, num  int       // images per block and in the batch
	nblocks     int
	shares      int // pieces: the run's shares of the blocks
	done        atomic.Int32
	busy        atomic.Bool
	err         error // the first feeder error, set under busy
	// The weights packed ahead of the pass (passPreps) are waited for
	// within the run, by the calling goroutine's first part (wait: the
	// pass has such work under way), and the convolutions pack the
	// rest; ready[k] tells the other goroutines that convolution k's are
	// packed (packed).
	net   *Net
	wait  bool
	ready [2]atomic.Bool
}

// forwardFed runs layer i, a MemoryData layer fed in pieces, with the
// chained groups after it that read its data top as one run (see above),
// and reports whether it did; it reports false, having done nothing but
// reshape, where that does not apply. waitPreps is called first when the
// run reaches layer wait (≥ 0) or later; last is the last layer run.
func (n *Net) forwardFed(i, wait int) (ran bool, last int, err error) {
	md, f, g := n.fedGroups(i)
	if md == nil {
		return false, i, nil
	}
	md.reshapeBatch(n.bottoms[i], n.tops[i])
	fits, err := n.chainReady(f, g)
	if err != nil || !fits {
		return false, i, err
	}
	d := f.conv.direct
	pf := &n.feed
	pf.md, pf.data, pf.label = md, n.tops[i][0].DataSlice(), n.tops[i][1].DataSlice()
	pf.size, pf.lanes, pf.num = md.channels*md.height*md.width, d.plan.Lanes(), md.batch
	pf.nblocks, pf.shares = d.nblocks, min(d.workers, d.nblocks, maxShares)
	pf.done.Store(0)
	pf.net, pf.wait = n, wait >= 0 && wait <= g.last
	pf.ready[0].Store(false)
	pf.ready[1].Store(false)
	f.conv.feedIn = pf
	err = n.runChain(f, g)
	f.conv.feedIn = nil
	// (A part that panicked may have left pieces unfed; err says so.)
	if err == nil {
		err = pf.err
	}
	pf.md, pf.data, pf.label, pf.err, pf.net = nil, nil, nil, nil, nil
	return true, g.last, err
}

// fedGroups returns layer i if it is a MemoryData layer fed in pieces
// with the chained groups f and g after it that read its data top
// (forwardFed), as the net is shaped; nil if not.
func (n *Net) fedGroups(i int) (md *MemoryData, f, g *convFusion) {
	md, ok := n.layers[i].(*MemoryData)
	if !ok || !md.pieces || !feedInPieces || i+1 >= len(n.layers) || n.Threads() <= 1 {
		return nil, nil, nil
	}
	f = n.fusions[i+1]
	if f == nil || n.bottoms[f.first][0] != n.tops[i][0] || slices.ContainsFunc(n.def.Layers[i].LossWeights, nonzero) {
		return nil, nil, nil
	}
	if g = n.chainNext(f); g == nil {
		return nil, nil, nil
	}
	return md, f, g
}

// through feeds the pieces up to the one that block b belongs to, those
// no other goroutine fed, waiting for one that another goroutine feeds.
func (pf *pieceFeed) through(b int) {
	k := 0
	for k+1 < pf.shares {
		if lo, _ := span(k+1, pf.shares, pf.nblocks); b < lo {
			break
		}
		k++
	}
	for {
		j := int(pf.done.Load())
		if j > k {
			return
		}
		if !pf.busy.CompareAndSwap(false, true) {
			kernel.SpinYield()
			continue
		}
		if j = int(pf.done.Load()); j <= k {
			lo, hi := span(j, pf.shares, pf.nblocks)
			lo, hi = lo*pf.lanes, min(hi*pf.lanes, pf.num)
			if err := pf.md.feedImages(pf.data[lo*pf.size:hi*pf.size], pf.label[lo:hi]); err != nil && pf.err == nil {
				pf.err = err
			}
			pf.done.Store(int32(j + 1))
		}
		pf.busy.Store(false)
	}
}

func nonzero(w float32) bool { return w != 0 }

// packed returns when the weights of convolution c, the chained forward
// run's first (k 0) or second (k 1), are packed (net_prep.go): the
// calling goroutine (w 0), which runs a part before any other goroutine
// can end one, waits for the work ahead and packs what that did not, the
// first convolution's, then the second's while the others convolve their
// first blocks; the others wait for it.
func (pf *pieceFeed) packed(c *Convolution, k, w int) {
	if pf.ready[k].Load() {
		return
	}
	if w == 0 {
		if pf.wait && k == 0 {
			pf.net.waitPreps()
		}
		c.packForward()
		pf.ready[k].Store(true)
		if k == 0 {
			c.chain.packForward()
			pf.ready[1].Store(true)
		}
		return
	}
	for !pf.ready[k].Load() {
		kernel.SpinYield()
	}
}

// unblock lets the goroutines waiting in packed go on when the calling
// goroutine's part ends, also where it panicked (the run then reports
// the panic).
func (pf *pieceFeed) unblock() {
	pf.ready[0].Store(true)
	pf.ready[1].Store(true)
}
