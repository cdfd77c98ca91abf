package kernel

import "fmt"

// FCForwardPackPanel returns how many rows of B FCForwardPack packs as one
// panel: FCForwardPackRows packs any run of whole panels, so that the
// goroutines of a product can share the packing, each packing the rows
// it has in its core's cache.
func FCForwardPackPanel() int { return active.nr }

// FCForwardPackRows packs rows [lo, hi) of B (n×k, rows ldb floats apart)
// into dst as FCForwardPack does, writing only what those rows give: lo is
// a multiple of FCForwardPackPanel(), hi too or n. Calls for ranges that
// together cover [0, n) leave dst as one FCForwardPack call does.
func FCForwardPackRows(m, n, k int, b []float32, ldb int, dst []float32, lo, hi int) {
	size := FCForwardPackSize(m, n, k)
	if size == 0 {
		panic(fmt.Sprintf("kernel: FCForwardPackRows: %d×%d×%d is not computed from a packed B", m, n, k))
	}
	g := active
	nr := g.nr
	if lo < 0 || hi > n || lo > hi || lo%nr != 0 || hi%nr != 0 && hi != n {
		panic(fmt.Sprintf("kernel: FCForwardPackRows: rows [%d, %d) of %d, panels of %d", lo, hi, n, nr))
	}
	checkLen("FCForwardPackRows", "b", len(b), (n-1)*ldb+k)
	checkLen("FCForwardPackRows", "dst", len(dst), size)
	kc, blockFloats, _ := g.fcForwardBlocks(n, k)
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		blk := dst[pc/kc*blockFloats:]
		for j := lo; j < hi; j += nr {
			q := j / nr
			g.packBTransPanel(b, ldb, pc, j, kb, min(nr, n-j), blk[q*kb*nr:(q+1)*kb*nr])
		}
	}
}

// FCRowTile returns the tile of rows by which FCForward and FCWeightGrad
// cut their parts: every part but the last holds a multiple of it.
func FCRowTile() int { return active.mr }
