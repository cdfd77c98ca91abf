package caffe

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// ipBalanceRows lets weightGradWithBlocks cut the weight gradient's rows
// between the goroutines' shares where their measured times put the cut
// (ipRowSplit), instead of in equal shares; benchmarks compare it off.
var ipBalanceRows = true

// ipRowSplit cuts the rows of an inner product's weight gradient between
// the shares of weightGradWithBlocks (one a goroutine, each run whole)
// at row tiles, from the times the shares took. The two cores are not
// always equally fast (for minutes at a time one runs a net's step
// nearly a fifth slower than the other), and the pooled goroutine starts
// its share later than the caller: with equal shares the first done
// waits for the other. Each share keeps its depth blocks of the input
// gradient, whose boundary fixes the summation order, and the cut moves
// only its weight-gradient rows, which give the same values wherever
// they are cut.
//
// After each run the caller notes by how much each share ended after the
// one before it; every ipSplitWindow runs it moves a cut by one row tile
// towards the share that ended first when the median of those
// differences exceeds ipSplitMove row tiles' time (moving a tile takes
// one tile's time from one share and gives it to the other, changing the
// difference by up to two). A cut thus moves slowly and only when the
// difference outlasts the noise (the median ignores the runs that a
// page fault or another process stretched), and a share's rows, with the
// weights and the solver's history in its core's cache, stay with it
// from step to step. Runs in which a goroutine ran another's share (it
// found the share untaken) say nothing about the cores and are not
// counted. Each cut stays within a share's even tiles over ipSplitReach
// of an even cut.
type ipRowSplit struct {
	tiles  int   // the row tiles the cuts are set for, 0 for none
	shares int   // the shares the cuts are set for
	chunks int   // the parts a share's rows are computed and updated in
	cut    []int // share sh has the tiles [cut[sh], cut[sh+1])
	least  []int // cut[i]'s bounds (ipSplitReach)
	most   []int

	start time.Time       // the run's start
	end   []time.Duration // share sh's end, since start
	busy  []time.Duration // share sh's time from its begin to its end
	ran   []int           // the goroutine that ran share sh
	diff  []time.Duration // the window's end[i]−end[i−1], ipSplitWindow from (i−1)·ipSplitWindow
	tileT time.Duration   // the window's sum of a row tile's times
	runs  int             // the runs in the window
}

// ipSplitWindow is how many runs an ipRowSplit takes the median of before
// it moves a cut; ipSplitMove is by how many row tiles' time (the
// window's mean of a tile's time) that median must exceed for a tile to
// move between the shares beside the cut.
const (
	ipSplitWindow = 16
	ipSplitMove   = 1.5
)

// ipSplitSwing makes an ipRowSplit swing its cuts between their bounds
// at every run, whatever the times (tests).
var ipSplitSwing = false

// ipSplitReach bounds how far a cut moves from an even cut: a share's
// even tiles over ipSplitReach.
const ipSplitReach = 3

// setup sets the cuts even for tiles row tiles in shares shares, unless
// they are set for them already, and returns the most row tiles a part
// of a share computes.
func (s *ipRowSplit) setup(tiles, shares, chunks int) int {
	if s.tiles != tiles || s.shares != shares || s.chunks != chunks {
		s.tiles, s.shares, s.chunks = tiles, shares, chunks
		s.cut = make([]int, shares+1)
		s.least, s.most = make([]int, shares+1), make([]int, shares+1)
		reach := tiles / shares / ipSplitReach
		for i := range shares + 1 {
			s.cut[i], _ = span(i, shares, tiles)
			s.least[i], s.most[i] = s.cut[i], s.cut[i]
			if i > 0 && i < shares {
				s.least[i], s.most[i] = s.cut[i]-reach, s.cut[i]+reach
			}
		}
		s.end = make([]time.Duration, shares)
		s.busy = make([]time.Duration, shares)
		s.ran = make([]int, shares)
		s.diff = make([]time.Duration, (shares-1)*ipSplitWindow)
		s.tileT, s.runs = 0, 0
	}
	most := 0
	for sh := range shares {
		most = max(most, s.most[sh+1]-s.least[sh])
	}
	return (most + chunks - 1) / chunks
}

// rows returns the rows [lo, hi) of part c of share sh, rows the weight
// gradient's rows and tile its row tile.
func (s *ipRowSplit) rows(sh, c, tile, rows int) (lo, hi int) {
	lo, hi = span(c, s.chunks, s.cut[sh+1]-s.cut[sh])
	lo, hi = (s.cut[sh]+lo)*tile, (s.cut[sh]+hi)*tile
	return min(rows, lo), min(rows, hi)
}

// note records the end of share sh, begun at begin, on goroutine w.
func (s *ipRowSplit) note(sh, w int, begin time.Duration) {
	end := time.Since(s.start)
	s.end[sh], s.busy[sh], s.ran[sh] = end, end-begin, w
}

// learn accounts for the run that just ended, whose shares did work of
// fixed tiles' worth besides their rows of the weight gradient (the
// input gradient's blocks), and moves the cuts at the end of a window.
func (s *ipRowSplit) learn(fixed int) {
	if ipSplitSwing {
		for i := 1; i < s.shares; i++ {
			if s.cut[i] == s.least[i] {
				s.cut[i] = s.most[i]
			} else {
				s.cut[i] = s.least[i]
			}
		}
		return
	}
	var busy time.Duration
	for sh := range s.shares {
		if s.ran[sh] != sh {
			return
		}
		busy += s.busy[sh]
	}
	tileT := busy / time.Duration(max(1, s.tiles+fixed))
	for i := 1; i < s.shares; i++ {
		s.diff[(i-1)*ipSplitWindow+s.runs] = s.end[i] - s.end[i-1]
	}
	s.tileT += tileT
	if s.runs++; s.runs < ipSplitWindow {
		return
	}
	limit := time.Duration(ipSplitMove * float64(s.tileT) / ipSplitWindow)
	for i := 1; i < s.shares; i++ {
		diff := s.diff[(i-1)*ipSplitWindow:][:ipSplitWindow]
		slices.Sort(diff)
		switch d := (diff[ipSplitWindow/2-1] + diff[ipSplitWindow/2]) / 2; {
		case d > limit && s.cut[i] < s.most[i]:
			s.cut[i]++ // share i ends later: share i−1 takes a tile
		case d < -limit && s.cut[i] > s.least[i]:
			s.cut[i]--
		}
	}
	s.tileT, s.runs = 0, 0
}

// weightGradSplit runs share sh of weightGradWithBlocks's run cut by
// wgSplit on goroutine w: its input gradient's blocks, then its rows of
// the weight gradient in wgSplit.chunks parts (weightGradRows).
func (l *InnerProduct) weightGradSplit(w, sh int) {
	s := &l.wgSplit
	begin := time.Since(s.start)
	tile := kernel.FCRowTile()
	first := 0 // the parts whose rows' gradient is computed
	var grad []float32
	if l.topTasks {
		runTask(&l.dxState[topState+sh], w, topState+sh, l.blockFn)
	}
	if l.dxCross {
		runTask(&l.dxState[sh], w, sh, l.blockFn)
		if ipCrossEarlyRows && s.chunks > 0 && l.dxState[1-sh].Load() != taskDone {
			// The second task waits for the other goroutine's first:
			// meanwhile, the first part's rows.
			lo, hi := s.rows(sh, 0, tile, l.gemm.m)
			grad, first = l.weightGradCompute(w, lo, hi), 1
		}
		runTask(&l.dxState[2+sh], w, 2+sh, l.blockFn)
	} else {
		for q := l.wgShares[sh]; q < l.wgShares[sh+1]; q++ {
			b := l.wgTask[q]
			runTask(&l.dxState[b], w, b, l.blockFn)
		}
	}
	for c := range s.chunks {
		lo, hi := s.rows(sh, c, tile, l.gemm.m)
		if c < first {
			l.weightGradFinish(w, lo, hi, sh*s.chunks+c, s.shares*s.chunks, grad)
			continue
		}
		l.weightGradRows(w, lo, hi, sh*s.chunks+c, s.shares*s.chunks)
	}
	s.note(sh, w, begin)
}

// weightGradSplitRun runs weightGradWithBlocks's run with the weight
// gradient's rows cut by wgSplit, in as many parts a share as the run's
// parts a thread.
func (l *InnerProduct) weightGradSplitRun(threads, parts int) {
	g := &l.gemm
	tile := kernel.FCRowTile()
	tiles := (g.m + tile - 1) / tile
	s := &l.wgSplit
	most := s.setup(tiles, threads, (parts+threads-1)/threads)
	if g.beta == 0 {
		for w := range threads {
			l.dwBufs[w] = growFloats(l.dwBufs[w], most*tile*g.ldc)
		}
	}
	l.wgTask = dealTasks(l.wgTask, &l.wgShares, threads, l.dxBlocks)
	l.dxCross = ipCrossBlocks && threads == 2 && l.dxBlocks == 2
	if l.topTasks && !l.dxCross {
		panic("caffe: the top's backward pass taken into a run that does not cross its blocks")
	}
	if l.dxCross {
		l.dxState = growStates(l.dxState, topState+2)
		for t := range topState {
			l.dxState[t].Store(taskTodo)
		}
	}
	s.start = time.Now()
	l.runner.run(threads, threads, l.wgSplitFn)
	l.dxCross = false
	// The blocks' rows of the weights, in row tiles.
	l.wgSplit.learn(l.n / tile)
}

// ipCrossBlocks lets weightGradSplitRun compute two depth blocks of the
// input gradient on two goroutines crossed (crossTask), without the
// blocks' buffer and the pass adding it; benchmarks compare it off.
var ipCrossBlocks = true

// ipCrossEarlyRows lets a share of a crossed run (crossTask) compute its
// first part's rows of the weight gradient between its two blocks' tasks
// when the second would wait for the other goroutine's first, and update
// them after; benchmarks compare it off.
var ipCrossEarlyRows = true

// crossTask computes task t of the input gradient's two depth blocks
// crossed, the input gradient's columns cut in two parts (kernel.
// FCInputGrad's parts of two): task b < 2 is block b's sum for the other
// part of the columns, 1−b, written into the input gradient; task 2+b is
// block b's sum for part b, added (beta 1) once task 1−b has written the
// other block's sum there. Each element is then the two blocks' sums
// added, one addition, as the pass adding a buffer gives it (a + b =
// b + a): kernel.FCInputGrad adds C to a depth block's sum from zero.
// Each of a block's rows of the weights is read once, as before, and
// neither goroutine writes a buffer or adds one. Task 2+b runs task 1−b
// first if no goroutine has begun it, so that no task waits for one that
// none runs. The bias gradient is summed with the last block's first
// task.
func (l *InnerProduct) crossTask(w, t int) {
	m, n, k := l.m, l.n, l.k
	b, part, beta := t, 1-t, float32(0)
	if t >= 2 {
		b, part, beta = t-2, t-2, 1
		finishTask(&l.dxState[1-b], w, 1-b, l.blockFn)
	}
	lo, hi := b*l.dxSize, min(n, (b+1)*l.dxSize)
	l.needTop(w, lo, hi)
	kernel.FCInputGrad(2, part, m, k, hi-lo, l.dxDY[lo:], n, l.blobs[0].DataSlice()[lo*k:], k, beta, l.dxOut, k)
	if t == 1 && l.biasInRun {
		l.needTop(w, 0, n)
		l.biasGrad(l.gemm.a)
	}
}

// growStates returns s with at least n states.
func growStates(s []atomic.Int32, n int) []atomic.Int32 {
	if len(s) < n {
		return make([]atomic.Int32, n)
	}
	return s
}

// finishCrossRows returns once the crossed blocks' tasks (crossTask) that
// read rows [lo, hi) of the weights are done, running on goroutine w
// those that no goroutine has begun: the rows may then be updated. No
// rows wait for nothing.
func (l *InnerProduct) finishCrossRows(w, lo, hi int) {
	for b := range 2 {
		if lo >= hi || hi <= b*l.dxSize || lo >= (b+1)*l.dxSize {
			continue
		}
		for _, t := range [2]int{b, 2 + b} {
			finishTask(&l.dxState[t], w, t, l.blockFn)
		}
	}
}
