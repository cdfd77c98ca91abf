package kernel

import (
	"fmt"
)

// The backward pass of a large fully connected layer in one pass over its
// weights. With W (N×K) far larger than the caches, the input gradient
// dX = dY·W reads W from memory, and an update of W right after its
// gradient (the solver's step, run inside the backward pass) reads it
// again, with its history. FCBackward reads W once: it walks W by tiles
// of fcFusedRows rows and fcFusedCols columns, in the order in which the
// input gradient sums them (blocks of kc rows, FCInputGradBlocks), and for
// each tile computes the tile's share of dX (its partial sums kept in a
// buffer between tiles of a block), then the tile's weight gradient into
// a buffer that stays in the cache, then hands each of the tile's rows of
// gradient to the caller, who updates those weights while they are still
// in the cache. The input gradient reads every weight before its update,
// and every sum is computed with the same multiply-adds in the same order
// as FCInputGrad and FCWeightGrad (beta 0), so the results are theirs,
// bit for bit.

// fcFusedRows and fcFusedCols are the tile of W that FCBackward
// handles at once: 64 rows (two of the input gradient's pieces of
// fcSubRows rows) of 1024 columns, 256 KB, so that the tile, its gradient,
// the history streaming past and the partial sums stay in L2.
const (
	fcFusedRows = 2 * fcSubRows
	fcFusedCols = 1024
)

// fcFuseFrom is the size of the weights, in floats, from which
// FCBackwardFused holds: 2^20 values (4 MB), beyond L2, where reading them
// once saves a pass over memory.
var fcFuseFrom = 1 << 20

// FCBackwardFused reports whether FCBackward computes the backward pass
// of a layer with batch m, n outputs and k inputs: weights of at least
// fcFuseFrom values and a batch of at least two rows (FCInputGrad and
// FCWeightGrad leave a single row to Sgemm).
func FCBackwardFused(m, n, k int) bool {
	return m >= 2 && n*k >= max(fcFuseFrom, fcStreamFrom)
}

// FCBackward computes part part of parts of the backward pass of a fully
// connected layer with batch m, n outputs and k inputs (FCBackwardFused
// must hold), for weights w (n×k), inputs x (m×k), output gradient dy
// (m×n), all rows dense:
//
//   - dx = dy·W, what FCInputGrad(1, 0, m, k, n, dy, n, w, k, 0, dx, k)
//     writes, if dx is not nil;
//   - the weight gradient dyᵀ·x, what FCWeightGrad(1, 0, n, k, m, dy, n,
//     x, k, 0, dW, k) would write, handed row piece by row piece to
//     update(row, col, grad): grad holds the gradient of w[row·k+col :
//     row·k+col+len(grad)], in a buffer that is reused once update
//     returns (update may overwrite it, as SGDStep does). update may
//     change those weights; the input gradient has read them by then,
//     and reads no weight after its update.
//
// A part is a block of columns of W (and of dx); the parts can run at
// once on different goroutines (each calling update for its own
// columns), and the results do not depend on their number.
func FCBackward(parts, part, m, n, k int, dy, x, w, dx []float32, update func(row, col int, grad []float32)) {
	checkFCPart("FCBackward", parts, part)
	if !FCBackwardFused(m, n, k) {
		panic(fmt.Sprintf("kernel: FCBackward: %d×%d×%d is not computed in one pass", m, n, k))
	}
	checkLen("FCBackward", "dy", len(dy), m*n)
	checkLen("FCBackward", "x", len(x), m*k)
	checkLen("FCBackward", "w", len(w), n*k)
	if dx != nil {
		checkLen("FCBackward", "dx", len(dx), m*k)
	}
	g := active
	if lo, hi := fcRange(k, parts, part, g.nr); lo < hi {
		g.fcBackward(lo, hi, m, n, k, dy, x, w, dx, update)
	}
}

// fcBackward computes FCBackward over columns [k0, k1) of W.
//
// The buffers' rows lie fcPadRow floats more than a multiple of 4 KB
// apart, and X is packed into panels of nr columns (each the m rows of
// those columns one after the other): AlexNet's rows (1024 columns of a
// tile, 9216 or 4096 inputs) lie a multiple of 4 KB apart, and the lines
// a kernel reads or writes side by side, one a row, would all fall into
// one set of the L1 cache and evict each other. The sums are the same.
//
// Only the input gradient's kernels prefetch (W a few panels ahead along
// the rows they read). The weight gradient's kernels, which read nothing
// from memory, prefetch nothing: prefetching the next tile's weights and
// the solver's history from them (as once here) cost more than it saved
// on an Intel Xeon, where each software prefetch holds one of the L1
// cache's few fill buffers until its line arrives, so the prefetches
// stalled the products at about 7.5 GB/s while the update's own reads
// find the hardware prefetchers (`BenchmarkFCBackward`: AlexNet's fc6,
// path=fused-nodiff, 57 ms against 46 ms without them).
func (g *gemmImpl) fcBackward(k0, k1, m, n, k int, dy, x, w, dx []float32, update func(row, col int, grad []float32)) {
	nr, mr := g.nr, g.mr
	kc := split(n, g.kc, 1)  // the input gradient's depth blocks: rows of W
	mc := split(m, g.mc, 1)  // its blocks of rows of dx
	wkc := split(m, g.kc, 1) // the weight gradient's depth blocks: the batch
	cw := min(fcFusedCols, (k1-k0+nr-1)/nr*nr)
	ld := cw + fcPadRow // the rows of sums and grad
	xw := (k1 - k0 + nr - 1) / nr * nr
	ws := workspaces.get()
	defer workspaces.put(ws)
	pa, buf := ws.buffers(m*kc+mr*m, m*ld+fcFusedRows*ld+fcSubRows*nr+m*xw)
	pdy, pdyT := pa[:m*kc], pa[m*kc:]
	sums, buf := buf[:m*ld], buf[m*ld:]
	grad, buf := buf[:fcFusedRows*ld], buf[fcFusedRows*ld:]
	pe, xp := buf[:fcSubRows*nr], buf[fcSubRows*nr:][:m*xw]
	fcPackPanels(m, k, k0, k1, nr, x, xp)
	for pc := 0; pc < n; pc += kc {
		kb := min(kc, n-pc)
		bb, load := fcBlockBeta(pc, 0)
		if dx != nil {
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				g.packA(false, 1, dy, n, ic, pc, mb, kb, (mb+mr-1)/mr, pdy[ic*kb:])
			}
		}
		for j0 := k0; j0 < k1; j0 += cw {
			j1 := min(k1, j0+cw)
			je := j1 - (j1-j0)%nr // the edge panel, if je < j1
			for r0 := 0; r0 < kb; r0 += fcFusedRows {
				r1 := min(kb, r0+fcFusedRows)
				if dx != nil {
					g.fcBackwardInput(pc, kb, r0, r1, j0, j1, je, ld, m, k, mc, pdy, w, sums, pe, dx, bb, load)
				}
				g.fcBackwardWeights(pc+r0, pc+r1, j0, j1, ld, m, wkc, dy, n, xp[(j0-k0)*m:], pdyT, grad)
				for r := r0; r < r1; r++ {
					update(pc+r, j0, grad[(r-r0)*ld:][:j1-j0])
				}
			}
		}
	}
}

// fcPadRow is how many floats fcBackward's buffers add to their rows.
const fcPadRow = 16

// fcPackPanels copies columns [k0, k1) of x (m rows of k) into xp in
// panels of nr columns, panel by panel, each its m rows of nr floats in
// turn, the last panel's columns beyond k1 zero.
func fcPackPanels(m, k, k0, k1, nr int, x, xp []float32) {
	for j := k0; j < k1; j += nr {
		wd := min(nr, k1-j)
		panel := xp[(j-k0)*m:][:m*nr]
		for p := range m {
			row := panel[p*nr : (p+1)*nr]
			copy(row, x[p*k+j:][:wd])
			clear(row[wd:])
		}
	}
}

// fcBackwardInput adds rows [r0, r1) of depth block pc (kb rows of W) to
// the input gradient's sums of columns [j0, j1), as fcInputGrad does: in
// pieces of fcSubRows rows, the sums resuming from the buffer, and at the
// block's last row added into dx with the block's beta.
func (g *gemmImpl) fcBackwardInput(pc, kb, r0, r1, j0, j1, je, ld, m, k, mc int, pdy, w, sums, pe, dx []float32, bb float32, load bool) {
	nr := g.nr
	for s := r0; s < r1; s += fcSubRows {
		sb := min(fcSubRows, r1-s)
		if je < j1 {
			for p := range sb {
				row := pe[p*nr : (p+1)*nr]
				copy(row, w[(pc+s+p)*k+je:][:j1-je])
				clear(row[j1-je:])
			}
		}
		for j := j0; j < j1; j += nr {
			wd := min(nr, j1-j)
			bp, ldp, pf := &pe[0], nr, 0
			if wd == nr {
				bp, ldp, pf = &w[(pc+s)*k+j], k, fcPrefetchPanels*4*nr
			}
			for ic := 0; ic < m; ic += mc {
				g.fcInputTiles(ic, min(mc, m-ic), kb, s, sb, pdy, ic*kb, bp, ldp, pf, sums, ld, j-j0, dx, k, j, wd, bb, load)
				pf = 0
			}
		}
	}
}

// fcBackwardWeights writes the weight gradient of rows [i0, i1) and
// columns [j0, j1) of W into grad (rows ld floats apart), as fcWeightGrad
// computes it with beta 0: tiles of mr rows, the batch in depth blocks of
// wkc, X's columns from j0 packed in panels (fcPackPanels) in xp.
func (g *gemmImpl) fcBackwardWeights(i0, i1, j0, j1, ld, m, wkc int, dy []float32, n int, xp, pdyT, grad []float32) {
	nr, mr := g.nr, g.mr
	for i := i0; i < i1; i += mr {
		h := min(mr, i1-i)
		for pc := 0; pc < m; pc += wkc {
			g.packA(true, 1, dy, n, i, pc, h, min(wkc, m-pc), 1, pdyT[pc*h:])
		}
		for pc := 0; pc < m; pc += wkc {
			kb := min(wkc, m-pc)
			bb, load := fcBlockBeta(pc, 0)
			for j := j0; j < j1; j += nr {
				wd := min(nr, j1-j)
				bp := &xp[(j-j0)*m+pc*nr]
				g.fc.packed(h, kb, &pdyT[pc*h], bp, nr, 0, nil, 0, &grad[(i-i0)*ld+j-j0], ld, wd, bb, load)
			}
		}
	}
}
