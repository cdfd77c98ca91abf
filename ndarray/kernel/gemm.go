package kernel

import (
	"fmt"
	"sync"
	"unsafe"
)

// microKernel updates an mr×nr tile of C (rows ldc floats apart) with the
// product of a packed mr×k panel of A (k-major, alpha applied) and a packed
// k×NR panel of B (row by row, zero padded): C = acc + beta*C when loadC,
// else C = acc without reading C. mr is at most the implementation's MR and
// nr at most its NR.
type microKernel func(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool)

// gemmImpl is one SGEMM implementation: a microkernel and the cache blocking
// that feeds it (GotoBLAS/BLIS scheme). B is packed kc×nc at a time into
// panels NR columns wide; A is packed mc×kc at a time into tiles of at most
// MR rows. The microkernel then walks the panels and, within each, the
// tiles, so one B panel (kc×NR) stays in L1 while the A block streams from
// L2.
type gemmImpl struct {
	name   string
	mr, nr int // largest tile
	kc     int // depth of a packed block
	mc     int // rows of a packed A block
	nc     int // columns of a packed B block (a multiple of nr)
	kernel microKernel
}

// workspace holds one goroutine's packing buffers.
type workspace struct {
	a, b []float32
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// buffers returns packing buffers of at least na and nb floats.
func (w *workspace) buffers(na, nb int) ([]float32, []float32) {
	if len(w.a) < na {
		w.a = make([]float32, na)
	}
	if len(w.b) < nb {
		w.b = make([]float32, nb)
	}
	return w.a, w.b
}

// split divides n into ceil(n/max) nearly equal parts, each a multiple of
// align except the last, and returns the part size.
func split(n, max, align int) int {
	parts := (n + max - 1) / max
	size := (n + parts - 1) / parts
	return (size + align - 1) / align * align
}

// sgemm computes C = alpha*op(A)*op(B) + beta*C on the calling goroutine.
// The arguments have been checked.
func (g *gemmImpl) sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	kc := split(k, g.kc, 1)
	mc := split(m, g.mc, 1)
	nc := split(n, g.nc, g.nr)
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	pa, pb := ws.buffers(mc*kc, kc*nc)

	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			blockBeta, loadC := beta, beta != 0
			if pc > 0 {
				blockBeta, loadC = 1, true
			}
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				tiles := (mb + g.mr - 1) / g.mr
				packA(transA, alpha, a, lda, ic, pc, mb, kb, tiles, pa)
				// The first row block packs each B panel just before its
				// first use, while it is hot in L1; later row blocks
				// reuse the packed panels.
				var bsrc []float32
				if ic == 0 {
					bsrc = b
				}
				g.macro(transB, bsrc, ldb, pc, jc, mb, nb, kb, tiles, pa, pb, c[ic*ldc+jc:], ldc, blockBeta, loadC)
			}
		}
	}
}

// macro runs the microkernel over one packed mb×kb block of A and the
// kb×nb block of B, updating the mb×nb block of C at c. If b is not nil,
// each panel of op(B) at (pc, jc) is packed into pb before its first use;
// otherwise pb already holds them.
func (g *gemmImpl) macro(transB bool, b []float32, ldb, pc, jc, mb, nb, kb, tiles int, pa, pb, c []float32, ldc int, beta float32, loadC bool) {
	base, extra := mb/tiles, mb%tiles
	for q, j := 0, 0; j < nb; q, j = q+1, j+g.nr {
		w := min(g.nr, nb-j)
		panel := pb[q*kb*g.nr : (q+1)*kb*g.nr]
		if b != nil {
			packBPanel(transB, b, ldb, pc, jc+j, kb, w, g.nr, panel)
		}
		aoff, row := 0, 0
		for t := 0; t < tiles; t++ {
			h := base
			if t < extra {
				h++
			}
			g.kernel(h, kb, &pa[aoff], &panel[0], &c[row*ldc+j], ldc, w, beta, loadC)
			aoff += h * kb
			row += h
		}
	}
}

// packA copies the mb×kb block of alpha*op(A) at (ic, pc) into tiles of
// nearly equal height (the first mb%tiles tiles one row taller), each
// stored k-major: tile[p*h+i] = alpha*op(A)[ic+r+i][pc+p].
func packA(trans bool, alpha float32, a []float32, lda, ic, pc, mb, kb, tiles int, dst []float32) {
	base, extra := mb/tiles, mb%tiles
	off, r := 0, 0
	for t := 0; t < tiles; t++ {
		h := base
		if t < extra {
			h++
		}
		tile := dst[off : off+h*kb]
		if trans {
			// op(A)[i][p] = a[p*lda+i]: each p holds h contiguous rows.
			for p := 0; p < kb; p++ {
				src := a[(pc+p)*lda+ic+r:][:h]
				d := tile[p*h : p*h+h]
				if alpha == 1 {
					copy(d, src)
				} else {
					for i, v := range src {
						d[i] = alpha * v
					}
				}
			}
		} else {
			for i := 0; i < h; i++ {
				src := a[(ic+r+i)*lda+pc:][:kb]
				if alpha == 1 {
					for p, v := range src {
						tile[p*h+i] = v
					}
				} else {
					for p, v := range src {
						tile[p*h+i] = alpha * v
					}
				}
			}
		}
		off += h * kb
		r += h
	}
}

// packBPanel copies the kb×w block of op(B) at (pc, j0) into panel, row
// by row and zero padded to nr columns: panel[p*nr+j] = op(B)[pc+p][j0+j].
func packBPanel(trans bool, b []float32, ldb, pc, j0, kb, w, nr int, panel []float32) {
	if trans {
		// op(B)[p][j] = b[j*ldb+p]: each column j is contiguous in p.
		for j := 0; j < w; j++ {
			src := b[(j0+j)*ldb+pc:][:kb]
			for p, v := range src {
				panel[p*nr+j] = v
			}
		}
		if w < nr {
			for p := 0; p < kb; p++ {
				clear(panel[p*nr+w : p*nr+nr])
			}
		}
		return
	}
	src := b[pc*ldb+j0:]
	switch {
	case w == 32 && nr == 32:
		for p := 0; p < kb; p++ {
			*(*[32]float32)(panel[p*32:]) = *(*[32]float32)(src[p*ldb:])
		}
	case w == 16 && nr == 16:
		for p := 0; p < kb; p++ {
			*(*[16]float32)(panel[p*16:]) = *(*[16]float32)(src[p*ldb:])
		}
	default:
		for p := 0; p < kb; p++ {
			d := panel[p*nr : p*nr+nr]
			copy(d, src[p*ldb:][:w])
			clear(d[w:])
		}
	}
}

// scaleMatrix sets the m×n matrix C to beta*C; beta == 0 writes zeros
// without reading C.
func scaleMatrix(m, n int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			Scale(beta, row)
		}
	}
}

// checkGemm panics with a message naming the bad argument unless the
// dimensions, leading dimensions and slice lengths describe valid matrices.
func checkGemm(name string, transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kernel: %s: negative dimension m=%d n=%d k=%d", name, m, n, k))
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	checkMatrix(name, "a", ar, ac, len(a), lda)
	checkMatrix(name, "b", br, bc, len(b), ldb)
	checkMatrix(name, "c", m, n, len(c), ldc)
}

// checkMatrix checks one stored rows×cols matrix; an empty one may have
// any leading dimension.
func checkMatrix(name, mat string, rows, cols, length, ld int) {
	if rows == 0 || cols == 0 {
		return
	}
	if ld < cols {
		panic(fmt.Sprintf("kernel: %s: ld%s = %d, want >= %d (the stored %d×%d matrix has %d columns)", name, mat, ld, cols, rows, cols, cols))
	}
	if need := (rows-1)*ld + cols; length < need {
		panic(fmt.Sprintf("kernel: %s: len(%s) = %d, want >= %d for a %d×%d matrix with ld%s = %d", name, mat, length, need, rows, cols, mat, ld))
	}
}

// goKernel is the portable microkernel: plain loops over the packed panels.
func goKernel(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool) {
	const NR = goNR
	var acc [goMR * NR]float32
	as := unsafe.Slice(a, mr*k)
	bs := unsafe.Slice(b, k*NR)
	for p := 0; p < k; p++ {
		brow := (*[NR]float32)(bs[p*NR:])
		ap := as[p*mr : p*mr+mr]
		for i, av := range ap {
			r := (*[NR]float32)(acc[i*NR:])
			for j := range r {
				r[j] += av * brow[j]
			}
		}
	}
	cs := unsafe.Slice(c, (mr-1)*ldc+nr)
	for i := 0; i < mr; i++ {
		row := cs[i*ldc : i*ldc+nr]
		r := acc[i*NR : i*NR+nr]
		if loadC {
			for j := range row {
				row[j] = r[j] + beta*row[j]
			}
		} else {
			copy(row, r)
		}
	}
}

// Tile of the portable microkernel.
const (
	goMR = 4
	goNR = 8
)

var goGemm = &gemmImpl{name: "go", mr: goMR, nr: goNR, kc: 256, mc: 128, nc: 1024, kernel: goKernel}
