package kernel

import "fmt"

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
func (g *gemmImpl) fcBackward(k0, k1, m, n, k int, dy, x, w, dx []float32, update func(row, col int, grad []float32)) {
	nr, mr := g.nr, g.mr
	kc := split(n, g.kc, 1)  // the input gradient's depth blocks: rows of W
	mc := split(m, g.mc, 1)  // its blocks of rows of dx
	wkc := split(m, g.kc, 1) // the weight gradient's depth blocks: the batch
	cw := min(fcFusedCols, (k1-k0+nr-1)/nr*nr)
	ws := workspaces.get(nil)
	defer workspaces.put(ws)
	pa, buf := ws.buffers(m*kc+mr*m, m*cw+fcFusedRows*cw+fcSubRows*nr+m*nr)
	pdy, pdyT := pa[:m*kc], pa[m*kc:]
	sums, buf := buf[:m*cw], buf[m*cw:]
	grad, buf := buf[:fcFusedRows*cw], buf[fcFusedRows*cw:]
	pe, px := buf[:fcSubRows*nr], buf[fcSubRows*nr:][:m*nr]
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
			if je < j1 {
				for p := range m {
					row := px[p*nr : (p+1)*nr]
					copy(row, x[p*k+je:p*k+j1])
					clear(row[j1-je:])
				}
			}
			for r0 := 0; r0 < kb; r0 += fcFusedRows {
				r1 := min(kb, r0+fcFusedRows)
				if dx != nil {
					g.fcBackwardInput(pc, kb, r0, r1, j0, j1, je, cw, m, k, mc, pdy, w, sums, pe, dx, bb, load)
				}
				g.fcBackwardWeights(pc+r0, pc+r1, j0, j1, je, cw, m, k, wkc, dy, n, x, px, pdyT, grad)
				for r := r0; r < r1; r++ {
					update(pc+r, j0, grad[(r-r0)*cw:][:j1-j0])
				}
			}
		}
	}
}

// fcBackwardInput adds rows [r0, r1) of depth block pc (kb rows of W) to
// the input gradient's sums of columns [j0, j1), as fcInputGrad does: in
// pieces of fcSubRows rows, the sums resuming from the buffer, and at the
// block's last row added into dx with the block's beta.
func (g *gemmImpl) fcBackwardInput(pc, kb, r0, r1, j0, j1, je, cw, m, k, mc int, pdy, w, sums, pe, dx []float32, bb float32, load bool) {
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
				g.fcInputTiles(ic, min(mc, m-ic), kb, s, sb, pdy, ic*kb, bp, ldp, pf, sums, cw, j-j0, dx, k, j, wd, bb, load)
				pf = 0
			}
		}
	}
}

// fcBackwardWeights writes the weight gradient of rows [i0, i1) and
// columns [j0, j1) of W into grad (rows cw floats apart), as fcWeightGrad
// computes it with beta 0: tiles of mr rows, the batch in depth blocks of
// wkc, X read in place but for its edge panel (px).
func (g *gemmImpl) fcBackwardWeights(i0, i1, j0, j1, je, cw, m, k, wkc int, dy []float32, n int, x, px, pdyT, grad []float32) {
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
				bp, ldp := &x[pc*k+j], k
				if j >= je {
					bp, ldp = &px[pc*nr], nr
				}
				g.fc.packed(h, kb, &pdyT[pc*h], bp, ldp, 0, nil, 0, &grad[(i-i0)*cw+j-j0], cw, wd, bb, load)
			}
		}
	}
}
