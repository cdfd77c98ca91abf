package kernel

import (
	"fmt"
	"sync"
)

// microKernel updates an mr×nr tile of C (rows ldc floats apart) with the
// product of a packed mr×k panel of A (k-major, alpha applied) and a packed
// k×NR panel of B (row by row, zero padded): C = acc + beta*C when loadC,
// else C = acc without reading C. mr is at most the implementation's MR and
// nr at most its NR.
type microKernel func(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool)

// gemmImpl is one SGEMM implementation: a microkernel and the cache
// blocking that feeds it (the GotoBLAS/BLIS scheme). For every block of nc
// columns and kc depth, B is packed into panels NR columns wide; for every
// block of mc rows, A is packed into tiles of at most MR rows, alpha
// applied. The microkernel then walks the panels and, within each panel,
// the tiles, so the B panel (kc×NR) stays in L1 while the A block streams
// from L2 and the packed B block waits in L2 for the next row block.
type gemmImpl struct {
	name   string
	mr, nr int // largest tile
	kc     int // depth of a packed block
	mc     int // rows of a packed A block
	nc     int // columns of a packed B block (a multiple of nr)
	kernel microKernel
	// copyChunks copies n chunks of nr floats, dstStride and srcStride
	// floats apart; it packs B.
	copyChunks func(dst, src *float32, n, dstStride, srcStride int)
	// packATile and packATransTile, if not nil, pack one tile of at most
	// mr (and at most packRows) rows of A or of a transposed A, with rows of the
	// packed tile ldd floats apart (see packA); packATile also packs
	// panels of a transposed B.
	packATile, packATransTile func(dst, src *float32, h, kb, lda, ldd int, alpha float32)
	// packRows is the most rows packATile packs in one call.
	packRows int
	// vec supplies the vector primitives for single-row and
	// single-column products.
	vec *vecImpl
	// peak is the implementation's FMA peak probe.
	peak peakProbe
	// direct holds the direct-convolution kernels, or nil.
	direct *directKernels
	// fc holds the kernels of the fully connected products (fc.go).
	fc *fcKernels
}

// workspace holds one goroutine's packing buffers.
type workspace struct {
	a, b []float32
}

// workspaces holds the packing buffers not in use.
var workspaces workspacePool

// workspacePool holds workspaces not in use. Unlike a sync.Pool it keeps
// them across garbage collections, so that products in steady state never
// allocate, even in a program whose other work collects garbage. Every
// workspace it holds is sized for the largest buffers asked of any: which
// one a goroutine gets depends on how the goroutines were scheduled, and a
// workspace sized for what it happened to serve so far would grow (and
// allocate) whenever a larger product got it, long after the first pass.
// So a request for more than the largest so far grows every workspace at
// hand, and those in use grow when they come back.
//
// Likewise, how many goroutines run products at once depends on the
// scheduling: two that have taken turns so far may overlap for the first
// time in the thousandth pass. So the pool holds a workspace for each
// goroutine that may run products (reserve): one for a calling goroutine,
// and one for each pooled goroutine (the product workers here, the
// workers of a package that splits its work over goroutines), made when the
// goroutine is started, not when it first overlaps with another.
type workspacePool struct {
	mu     sync.Mutex
	free   []*workspace
	na, nb int // the largest buffers asked for so far
	made   int // the workspaces made so far
	extra  int // the goroutines reserved for besides a calling one
}

// get returns a free workspace, or a new one when all are in use.
func (p *workspacePool) get() *workspace {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		w := p.free[n-1]
		p.free = p.free[:n-1]
		return w
	}
	p.made++
	w := new(workspace)
	w.fit(p.na, p.nb)
	return w
}

// reserve makes workspaces for n more goroutines, so that 1 + all those
// reserved for can run products at once without allocating; a negative n
// gives back a reservation, and the pool drops free workspaces beyond
// what it still reserves.
func (p *workspacePool) reserve(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.extra = max(0, p.extra+n)
	for ; p.made > 1+p.extra && len(p.free) > 0; p.made-- {
		p.free[len(p.free)-1] = nil
		p.free = p.free[:len(p.free)-1]
	}
	for ; p.made < 1+p.extra; p.made++ {
		w := new(workspace)
		w.fit(p.na, p.nb)
		p.free = append(p.free, w)
	}
	if cap(p.free) < p.made {
		p.free = append(make([]*workspace, 0, p.made), p.free...)
	}
}

// put returns w to the pool, grown to the largest buffers asked for.
func (p *workspacePool) put(w *workspace) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.fit(p.na, p.nb)
	p.free = append(p.free, w)
}

// grow raises the largest buffers asked for to na and nb floats, grows the
// free workspaces to them, and returns them.
func (p *workspacePool) grow(na, nb int) (int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.na, p.nb = max(p.na, na), max(p.nb, nb)
	for _, w := range p.free {
		w.fit(p.na, p.nb)
	}
	return p.na, p.nb
}

// fit makes the buffers at least na and nb floats long.
func (w *workspace) fit(na, nb int) {
	if len(w.a) < na {
		w.a = make([]float32, na)
	}
	if len(w.b) < nb {
		w.b = make([]float32, nb)
	}
}

// buffers returns packing buffers of at least na and nb floats.
func (w *workspace) buffers(na, nb int) ([]float32, []float32) {
	if len(w.a) < na || len(w.b) < nb {
		w.fit(workspaces.grow(na, nb))
	}
	return w.a, w.b
}

// freeList is a stack of reusable values, made on demand.
type freeList[T any] struct {
	mu   sync.Mutex
	free []*T
}

// get returns a value from the list, or a new one made by init (if not
// nil) when the list is empty.
func (l *freeList[T]) get(init func(*T)) *T {
	l.mu.Lock()
	if n := len(l.free); n > 0 {
		v := l.free[n-1]
		l.free = l.free[:n-1]
		l.mu.Unlock()
		return v
	}
	l.mu.Unlock()
	v := new(T)
	if init != nil {
		init(v)
	}
	return v
}

// put returns v to the list.
func (l *freeList[T]) put(v *T) {
	l.mu.Lock()
	l.free = append(l.free, v)
	l.mu.Unlock()
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
		scaleMatrix(g.vec, m, n, beta, c, ldc)
		return
	}
	g.product(gemvPathOf(transA, transB, m, n, ldb), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// product computes C = alpha*op(A)*op(B) + beta*C by gemv's path or, for
// noGemv, by the blocked product, for m, n, k >= 1 and alpha != 0.
func (g *gemmImpl) product(path gemvPath, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if g.gemv(path, transA, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	g.blocked(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// blocked computes C = alpha*op(A)*op(B) + beta*C with the packed blocks
// and the microkernel, for m, n, k >= 1 and alpha != 0. Every element of C
// is summed in the same order whatever m and n are, so a block of rows
// or columns of a product computed alone equals the same block of the
// whole product, bit for bit.
func (g *gemmImpl) blocked(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	kc := split(k, g.kc, 1)
	mc := split(m, g.mc, 1)
	nc := split(n, g.nc, g.nr)
	ws := workspaces.get()
	defer workspaces.put(ws)
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
				g.packA(transA, alpha, a, lda, ic, pc, mb, kb, tiles, pa)
				// The first row block packs B: a B that is not
				// transposed in one pass along its rows, a transposed B
				// panel by panel just before each panel's first use.
				// Later row blocks reuse the packed panels.
				var bt []float32
				if ic == 0 {
					if transB {
						bt = b
					} else {
						g.packB(b, ldb, pc, jc, kb, nb, pb)
					}
				}
				g.macro(bt, ldb, pc, jc, mb, nb, kb, tiles, pa, pb, c[ic*ldc+jc:], ldc, blockBeta, loadC)
			}
		}
	}
}

// macro runs the microkernel over one packed mb×kb block of A (in tiles)
// and the kb×nb block of op(B) at (pc, jc), updating the mb×nb block of C
// at c. If bt (a transposed B) is not nil, each panel is packed from it
// into pb just before its first use; otherwise pb holds the panels.
func (g *gemmImpl) macro(bt []float32, ldb, pc, jc, mb, nb, kb, tiles int, pa, pb, c []float32, ldc int, beta float32, loadC bool) {
	base, extra := mb/tiles, mb%tiles
	for q, j := 0, 0; j < nb; q, j = q+1, j+g.nr {
		w := min(g.nr, nb-j)
		panel := pb[q*kb*g.nr : (q+1)*kb*g.nr]
		if bt != nil {
			g.packBTransPanel(bt, ldb, pc, jc+j, kb, w, panel)
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
