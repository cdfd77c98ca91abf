package kernel

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// The fully connected products at small batch. A fully connected layer
// with weights W (N×K), input X (M×K) and output Y (M×N) computes
//
//	forward         Yᵀ = W·Xᵀ         FCForward    (m, n, k = N, M, K)
//	input gradient  dX = dY·W         FCInputGrad  (m, n, k = M, K, N)
//	weight gradient dW += dYᵀ·X       FCWeightGrad (m, n, k = N, K, M)
//
// With M small the weights (or their gradient) are by far the largest
// operand, and Sgemm, which packs its operands into blocks, copies them
// once more on every call. These products read them where they lie,
// streaming each weight once through the cache, and pack only the small
// operand. Each computes every element of C with the same multiply-adds
// in the same order as Sgemm with the same arguments (K cut into the same
// blocks of kc, each summed from zero and then added to C), so the results
// are Sgemm's bit for bit; only the order in which the elements are
// computed differs.
//
// Each product can be cut into parts that run at once on different
// goroutines (see FCParts); the parts compute disjoint blocks of C, so the
// result does not depend on how many there are.

// fcRowsFunc and fcPackedFunc are the kernels of one implementation, for
// tiles of mr rows: fcRows reads A in place (rows lda floats apart), B as
// k rows ldb floats apart (a packed panel or in place); fcPacked reads A
// packed k-major and B in place, and with pf != 0 prefetches into L2 the
// bytes pf after each B row it reads. Both update the first nr columns of
// the tile of C as the SGEMM microkernels do.
type (
	fcRowsFunc   = func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, nr int, beta float32, loadC bool)
	fcPackedFunc = func(k int, a, b *float32, ldb, pf int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool)
)

// fcKernels holds an implementation's fully connected kernels.
type fcKernels struct {
	rows   func(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, nr int, beta float32, loadC bool)
	packed func(mr, k int, a, b *float32, ldb, pf int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool)
}

func init() {
	goGemm.fc = &fcKernels{
		rows: func(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, nr int, beta float32, loadC bool) {
			goFCKernel(mr, k, a, lda, 1, b, ldb, nil, 0, c, ldc, nr, beta, loadC)
		},
		packed: func(mr, k int, a, b *float32, ldb, _ int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool) {
			goFCKernel(mr, k, a, 1, mr, b, ldb, t, ldt, c, ldc, nr, beta, loadC)
		},
	}
}

// goFCKernel is the portable kernel: A element (i, p) at a[i*aRow+p*aStep],
// B row p at b[p*ldb:], goNR floats read, the sums starting from the tile
// at t (rows ldt apart) if t is not nil. It computes what goKernel does.
func goFCKernel(mr, k int, a *float32, aRow, aStep int, b *float32, ldb int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool) {
	const NR = goNR
	var acc [goMR * NR]float32
	if t != nil {
		ts := unsafe.Slice(t, (mr-1)*ldt+NR)
		for i := 0; i < mr; i++ {
			copy(acc[i*NR:(i+1)*NR], ts[i*ldt:])
		}
	}
	as := unsafe.Slice(a, (mr-1)*aRow+(k-1)*aStep+1)
	bs := unsafe.Slice(b, (k-1)*ldb+NR)
	for p := 0; p < k; p++ {
		bp := (*[NR]float32)(bs[p*ldb:])
		for i := 0; i < mr; i++ {
			av := as[i*aRow+p*aStep]
			r := (*[NR]float32)(acc[i*NR:])
			for j := range r {
				r[j] += av * bp[j]
			}
		}
	}
	storeTile(&acc, mr, nr, c, ldc, beta, loadC)
}

// fcPackBudget is the most floats of packed or reused operand the
// products keep for a pass over the large one: about half of L2.
var fcPackBudget = 1 << 18

// fcStreamFrom is the size of the weights (k×n for FCInputGrad, m×n for
// FCWeightGrad), in floats, from which the gradients stream them. In a
// net's backward pass even LeNet's ip1 (400K floats) finds its weights
// out of L1 and L2 and gains, but tiny weights (CIFAR-10 quick's ip1, 64K
// floats) stay in the cache, where Sgemm's packed blocks are faster. The
// forward product streams them at every size.
var fcStreamFrom = 1 << 17

// FCParts returns how many parts the fully connected products split an
// m×n×k product into for threads goroutines: 1 (not split) for one
// thread, one processor or a small product, else one part a goroutine, or
// for a large product parallelPartsPerThread parts a goroutine, so that
// a goroutine that gets a core to itself takes over the parts of one that
// does not.
func FCParts(threads, m, n, k int) int {
	if threads <= 1 || m*n*k < parallelMinWork || runtime.GOMAXPROCS(0) == 1 {
		return 1
	}
	parts := min(threads, runtime.GOMAXPROCS(0))
	if m*n*k >= 16*parallelMinWork {
		parts *= parallelPartsPerThread
	}
	return parts
}

// fcRange returns the extent [lo, hi) of part of parts along an extent:
// the extent's tiles of align (the last one short) dealt evenly, each
// part a run of whole tiles, the counts differing by one at most. (Parts
// of one rounded-up size left the last ones short: LeNet's ip1, 36
// tiles of 14 rows in 8 parts of 5 tiles, gave a goroutine's 4 parts 280
// rows and the other's 220.)
func fcRange(extent, parts, part, align int) (lo, hi int) {
	tiles := (extent + align - 1) / align
	return min(extent, part*tiles/parts*align), min(extent, (part+1)*tiles/parts*align)
}

// checkFCPart panics unless part is one of parts.
func checkFCPart(name string, parts, part int) {
	if parts < 1 || part < 0 || part >= parts {
		panic(fmt.Sprintf("kernel: %s: part %d of %d", name, part, parts))
	}
}

// FCForward computes part part of parts of C = A·Bᵀ + beta·C, where A is
// m×k (lda), B is n×k (ldb) and C m×n (ldc): the same as
// Sgemm(false, true, m, n, k, 1, a, lda, b, ldb, beta, c, ldc), bit for
// bit. A (the weights) is read in place, B packed; a part is a block of
// rows of C.
func FCForward(parts, part, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("FCForward", false, true, m, n, k, a, lda, b, ldb, c, ldc)
	checkFCPart("FCForward", parts, part)
	g := active
	if m == 0 || n == 0 || k == 0 || n == 1 {
		if part == 0 {
			g.sgemm(false, true, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		}
		return
	}
	lo, hi := fcRange(m, parts, part, g.mr)
	if lo < hi {
		g.fcForward(lo, hi, n, k, a, lda, b, ldb, beta, c, ldc)
	}
}

// FCForwardPackSize returns how many floats FCForwardPack writes for an
// m×n×k FCForward product, or 0 when FCForward computes it otherwise than
// from B packed whole (a degenerate product, or B too large to be packed
// at once). The packing depends on the kernels in use.
func FCForwardPackSize(m, n, k int) int {
	if m == 0 || n == 0 || k == 0 || n == 1 {
		return 0
	}
	kc, blockFloats, blocks := active.fcForwardBlocks(n, k)
	if blocks*kc < k {
		return 0
	}
	return (k + kc - 1) / kc * blockFloats
}

// FCForwardPack packs B (n×k, rows ldb floats apart) into dst
// (FCForwardPackSize(m, n, k) floats) for FCForwardPacked, once for all
// the parts of a product, where each part of FCForward packs it again.
func FCForwardPack(m, n, k int, b []float32, ldb int, dst []float32) {
	size := FCForwardPackSize(m, n, k)
	if size == 0 {
		panic(fmt.Sprintf("kernel: FCForwardPack: %d×%d×%d is not computed from a packed B", m, n, k))
	}
	checkLen("FCForwardPack", "b", len(b), (n-1)*ldb+k)
	checkLen("FCForwardPack", "dst", len(dst), size)
	active.fcForwardPack(0, k, n, k, b, ldb, dst)
}

// FCForwardPacked computes part part of parts of FCForward from B packed
// by FCForwardPack: the same values, bit for bit.
func FCForwardPacked(parts, part, m, n, k int, a []float32, lda int, packed []float32, beta float32, c []float32, ldc int) {
	checkFCPart("FCForwardPacked", parts, part)
	size := FCForwardPackSize(m, n, k)
	if size == 0 || lda < k || ldc < n {
		panic(fmt.Sprintf("kernel: FCForwardPacked: %d×%d×%d, lda %d, ldc %d", m, n, k, lda, ldc))
	}
	checkLen("FCForwardPacked", "a", len(a), (m-1)*lda+k)
	checkLen("FCForwardPacked", "packed", len(packed), size)
	checkLen("FCForwardPacked", "c", len(c), (m-1)*ldc+n)
	g := active
	if lo, hi := fcRange(m, parts, part, g.mr); lo < hi {
		g.fcForwardRows(lo, hi, 0, k, n, k, a, lda, packed, beta, c, ldc)
	}
}

// FCForwardRows returns the rows [lo, hi) of C that part part of parts
// of FCForward(parts, part, m, n, k, …) computes (an empty range for a
// part that computes nothing), so that a caller can go on with those rows
// in the same part.
func FCForwardRows(parts, part, m, n, k int) (lo, hi int) {
	checkFCPart("FCForwardRows", parts, part)
	return fcPartRows(parts, part, m, m == 0 || n == 0 || k == 0 || n == 1)
}

// TransposeAdd writes the transpose of src, a rows×cols matrix (rows lds
// floats apart), into dst (rows ldd floats apart), adding bias[r] to row
// r's values: dst[c·ldd+r] = src[r·lds+c] + bias[r], or + 0 for a nil
// bias, each value by one float32 addition. It turns FCForward's Yᵀ into
// Y: blocks of vector-width columns are transposed in registers by the
// direct convolution's deinterleave kernel (its pixels the rows, its
// lanes the columns), the rest one value at a time.
func TransposeAdd(dst []float32, ldd int, src []float32, lds int, rows, cols int, bias []float32) {
	if rows < 0 || cols < 0 || rows > 0 && cols > 0 && (lds < cols || ldd < rows) {
		panic(fmt.Sprintf("kernel: TransposeAdd: %d×%d, lds %d, ldd %d", rows, cols, lds, ldd))
	}
	if rows == 0 || cols == 0 {
		return
	}
	checkLen("TransposeAdd", "src", len(src), (rows-1)*lds+cols)
	checkLen("TransposeAdd", "dst", len(dst), (cols-1)*ldd+rows)
	if bias != nil {
		checkLen("TransposeAdd", "bias", len(bias), rows)
	}
	full := 0
	if k := active.direct; k != nil {
		L := k.lanes
		full = cols / L * L
		// With a bias, x + −0 is x for every x, and the bias is added
		// after; without one, x + 0 as below.
		var add float32
		if bias != nil {
			add = float32(math.Copysign(0, -1))
		}
		for c0 := 0; c0 < full; c0 += L {
			k.deinterleave(&dst[c0*ldd], ldd*4, &src[c0], lds*4, rows, L, add)
		}
		if bias != nil {
			for c := range full {
				d := dst[c*ldd : c*ldd+rows]
				Add(d, d, bias[:rows])
			}
		}
	}
	for r := range rows {
		var b float32
		if bias != nil {
			b = bias[r]
		}
		for c, v := range src[r*lds+full : r*lds+cols] {
			dst[(full+c)*ldd+r] = v + b
		}
	}
}

// FCInputGrad computes part part of parts of C = A·B + beta·C, where A is
// m×k (lda), B is k×n (ldb) and C m×n (ldc): the same as
// Sgemm(false, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc), bit for
// bit. B (the weights) is read in place, A packed, when B is too large
// for the cache (else Sgemm computes it); a part is a block of columns of
// C.
func FCInputGrad(parts, part, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("FCInputGrad", false, false, m, n, k, a, lda, b, ldb, c, ldc)
	checkFCPart("FCInputGrad", parts, part)
	g := active
	if m == 0 || n == 0 || k == 0 || m == 1 || (n == 1 && ldb == 1) {
		if part == 0 {
			g.sgemm(false, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		}
		return
	}
	lo, hi := fcRange(n, parts, part, g.nr)
	switch {
	case lo >= hi:
	case k*n < fcStreamFrom:
		g.sgemm(false, false, m, hi-lo, k, 1, a, lda, b[lo:], ldb, beta, c[lo:], ldc)
	default:
		g.fcInputGrad(lo, hi, m, k, a, lda, b, ldb, beta, c, ldc)
	}
}

// FCInputGradBlocks returns the blocks of depth (along k) in which
// FCInputGrad sums an m×n×k product with B's rows ldb floats apart:
// blocks of size (the last one shorter), C being beta·C plus the first
// block's sum from zero, then each later block's sum from zero added in
// turn. A caller may thus compute the blocks apart, on different
// goroutines: FCInputGrad over block b's depth alone (A's columns and B's
// rows [b·size, min(k, (b+1)·size))) with beta for the first block and 0,
// into buffers, for the others, then the buffers added to C in block
// order, one addition each: the bits of the whole product. A product that
// FCInputGrad computes whole in another way (a single row of A) has one
// block.
func FCInputGradBlocks(m, n, k, ldb int) (blocks, size int) {
	if m <= 1 || n == 0 || k == 0 || (n == 1 && ldb == 1) {
		return 1, k
	}
	size = split(k, active.kc, 1)
	return (k + size - 1) / size, size
}

// FCWeightGrad computes part part of parts of C = Aᵀ·B + beta·C, where A
// is k×m (lda), B is k×n (ldb) and C m×n (ldc): the same as
// Sgemm(true, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc), bit for
// bit. C (the weight gradient) is streamed once, row block by row block,
// and B is read in place, when C is too large for the cache (else Sgemm
// computes it); a part is a block of rows of C.
func FCWeightGrad(parts, part, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("FCWeightGrad", true, false, m, n, k, a, lda, b, ldb, c, ldc)
	checkFCPart("FCWeightGrad", parts, part)
	g := active
	if m == 0 || n == 0 || k == 0 || m == 1 {
		if part == 0 {
			g.sgemm(true, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		}
		return
	}
	lo, hi := fcRange(m, parts, part, g.mr)
	if lo < hi {
		g.fcWeightGradPart(lo, hi, m, n, k, a, lda, b, ldb, beta, c[lo*ldc:], ldc)
	}
}

// FCWeightGradSpan computes rows [lo, hi) of FCWeightGrad's m×n×k product
// into c's rows 0 to hi−lo (ldc floats apart), with the bits FCWeightGrad
// gives them, for any rows whose first is a multiple of FCRowTile() (a
// part's rows, FCWeightGradRows, or any run of whole row tiles but for the
// product's last): C's block written to a buffer of its own, which the
// caller goes on with while it is in the cache, and the rows cut at row
// tiles as the caller likes. A degenerate product (no work, or a single
// row) is computed whole, its rows asked for all of them; no rows (lo =
// hi) computes nothing.
func FCWeightGradSpan(lo, hi, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	degenerate := m == 0 || n == 0 || k == 0 || m == 1
	if lo < 0 || hi > m || lo > hi || lo < hi && (lo%active.mr != 0 || degenerate && (lo != 0 || hi != m)) {
		panic(fmt.Sprintf("kernel: FCWeightGradSpan: rows [%d, %d) of %d (row tile %d)", lo, hi, m, active.mr))
	}
	if lo >= hi {
		return
	}
	checkGemm("FCWeightGradSpan", true, false, hi-lo, n, k, a[lo:], lda, b, ldb, c, ldc)
	if m == 0 || n == 0 || k == 0 || m == 1 {
		active.sgemm(true, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		return
	}
	active.fcWeightGradPart(lo, hi, m, n, k, a, lda, b, ldb, beta, c, ldc)
}

// fcWeightGradPart computes rows [lo, hi) of FCWeightGrad's m×n×k
// product into c, which starts at row lo. Rows of a single tile (LeNet's
// ip2: 10) are computed reading B in place even when C is small: Sgemm
// would pack the whole of B for that one tile (LeNet's ip2: 64×500
// values of the input, as many as the product's multiply-adds over 10)
// and use it once.
func (g *gemmImpl) fcWeightGradPart(lo, hi, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m*n < fcStreamFrom && hi-lo > g.mr { // one row would take Sgemm's single-row path
		g.sgemm(true, false, hi-lo, n, k, 1, a[lo:], lda, b, ldb, beta, c, ldc)
		return
	}
	g.fcWeightGrad(lo, hi, n, k, a, lda, b, ldb, beta, c, ldc)
}

// FCWeightGradRows returns the rows [lo, hi) of C that part part of
// parts of FCWeightGrad computes (empty for a part with none), for an
// m×n×k product.
func FCWeightGradRows(parts, part, m, n, k int) (lo, hi int) {
	checkFCPart("FCWeightGradRows", parts, part)
	return fcPartRows(parts, part, m, m == 0 || n == 0 || k == 0 || m == 1)
}

// fcPartRows returns the rows of an m-row product that part part of parts
// computes: all of them in part 0 where the product is degenerate (it
// runs whole, on Sgemm), else the part's share of the row tiles.
func fcPartRows(parts, part, m int, degenerate bool) (lo, hi int) {
	if !degenerate {
		return fcRange(m, parts, part, active.mr)
	}
	if part == 0 {
		return 0, m
	}
	return 0, 0
}

// fcBlockBeta returns the beta and loadC with which the depth block at pc
// updates C, as sgemm does: the first block applies beta, later ones add.
func fcBlockBeta(pc int, beta float32) (float32, bool) {
	if pc > 0 {
		return 1, true
	}
	return beta, beta != 0
}

// fcForward computes rows [m0, m1) of C = A·Bᵀ + beta·C. Bᵀ is packed into
// panels for as many depth blocks as fit the budget; then every tile of mr
// rows of A runs along those blocks, reading its rows once, in order,
// while the panels come from L2.
func (g *gemmImpl) fcForward(m0, m1, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	kc, blockFloats, blocks := g.fcForwardBlocks(n, k)
	ws := workspaces.get()
	defer workspaces.put(ws)
	_, pb := ws.buffers(0, blocks*blockFloats)
	for k0 := 0; k0 < k; k0 += blocks * kc {
		k1 := min(k, k0+blocks*kc)
		g.fcForwardPack(k0, k1, n, k, b, ldb, pb)
		g.fcForwardRows(m0, m1, k0, k1, n, k, a, lda, pb, beta, c, ldc)
	}
}

// fcForwardBlocks returns the depth of fcForward's blocks, the floats of
// a block of packed panels and how many blocks it packs at once.
func (g *gemmImpl) fcForwardBlocks(n, k int) (kc, blockFloats, blocks int) {
	kc = split(k, g.kc, 1)
	blockFloats = kc * ((n + g.nr - 1) / g.nr) * g.nr
	return kc, blockFloats, max(1, fcPackBudget/blockFloats)
}

// fcForwardPack packs the depth blocks [k0, k1) of Bᵀ into pb.
func (g *gemmImpl) fcForwardPack(k0, k1, n, k int, b []float32, ldb int, pb []float32) {
	nr := g.nr
	kc, blockFloats, _ := g.fcForwardBlocks(n, k)
	panels := (n + nr - 1) / nr
	for pc := k0; pc < k1; pc += kc {
		kb := min(kc, k-pc)
		blk := pb[(pc-k0)/kc*blockFloats:]
		for q := 0; q < panels; q++ {
			g.packBTransPanel(b, ldb, pc, q*nr, kb, min(nr, n-q*nr), blk[q*kb*nr:(q+1)*kb*nr])
		}
	}
}

// fcAliasRows is the most rows of A that fcForwardRows reads at once
// when they lie a multiple of 4 KB apart (AlexNet's fc6, fc7 and fc8:
// 9216 and 4096 inputs). Each kernel call reads its rows side by side, a
// cache line of each for 16 steps, and lines 4 KB apart fall into the
// same set of the L1 cache, which holds 8 (12 on newer cores) of them: a
// tile of the AVX-512 kernels' 14 rows evicts its own lines before it is
// done with them and reads them again from L2. The rows a tile holds do
// not change any sum (each row of C is summed on its own, in the same
// order).
const fcAliasRows = 8

// fcForwardTile returns how many rows of A (rows lda floats apart)
// fcForwardRows runs per kernel call: the kernels' mr, or fcAliasRows
// where the rows alias in the L1 cache.
func fcForwardTile(mr, lda int) int {
	if lda*4%4096 == 0 && mr > fcAliasRows {
		return fcAliasRows
	}
	return mr
}

// fcForwardRows computes rows [m0, m1) of C over the depth blocks
// [k0, k1), packed in pb, in tiles of fcForwardTile rows.
func (g *gemmImpl) fcForwardRows(m0, m1, k0, k1, n, k int, a []float32, lda int, pb []float32, beta float32, c []float32, ldc int) {
	nr, mr := g.nr, fcForwardTile(g.mr, lda)
	kc, blockFloats, _ := g.fcForwardBlocks(n, k)
	panels := (n + nr - 1) / nr
	for i := m0; i < m1; i += mr {
		h := min(mr, m1-i)
		for pc := k0; pc < k1; pc += kc {
			kb := min(kc, k-pc)
			bb, load := fcBlockBeta(pc, beta)
			blk := pb[(pc-k0)/kc*blockFloats:]
			for q := 0; q < panels; q++ {
				g.fc.rows(h, kb, &a[i*lda+pc], lda, &blk[q*kb*nr], nr, &c[i*ldc+q*nr], ldc, min(nr, n-q*nr), bb, load)
			}
		}
	}
}

// fcSubRows is how many rows of B fcInputGrad reads at once: a depth
// block is cut into pieces of this many rows, and the sums of a piece
// resume those of the previous one, kept in a buffer.
const fcSubRows = 32

// fcPrefetchPanels is how many panels ahead along its rows fcInputGrad
// prefetches B.
const fcPrefetchPanels = 2

// fcInputGrad computes columns [n0, n1) of C = A·B + beta·C, in chunks of
// columns whose block of C (and the buffer below) stay in L2. Within a
// depth block it runs along fcSubRows rows of B at a time across the whole
// chunk, so that B is read a few rows at a time, each in order (the first
// tile of every panel prefetching those rows fcPrefetchPanels panels
// ahead); the partial sums of the tiles wait in a buffer of the chunk's
// size between pieces, its rows fcPadRow floats longer than the chunk: a
// chunk of 1024 columns (LeNet's ip1, a batch of 64) put them 4 KB apart,
// and the rows of a tile, read and written side by side, all fell into
// the same sets of the L1 cache. A panel narrower than nr (the last) is
// copied.
func (g *gemmImpl) fcInputGrad(n0, n1, m, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	nr, mr := g.nr, g.mr
	kc := split(k, g.kc, 1)
	mc := split(m, g.mc, 1)
	cw := max(nr, fcPackBudget/4/m/nr*nr)
	ld := cw + fcPadRow // the rows of sums
	ws := workspaces.get()
	defer workspaces.put(ws)
	pa, buf := ws.buffers(mc*kc, kc*nr+m*ld)
	pe, sums := buf[:kc*nr], buf[kc*nr:]
	for j0 := n0; j0 < n1; j0 += cw {
		j1 := min(n1, j0+cw)
		je := j1 - (j1-j0)%nr // the edge panel, if je < j1
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			bb, load := fcBlockBeta(pc, beta)
			if je < j1 {
				for p := 0; p < kb; p++ {
					row := pe[p*nr : (p+1)*nr]
					copy(row, b[(pc+p)*ldb+je:][:j1-je])
					clear(row[j1-je:])
				}
			}
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				tiles := (mb + mr - 1) / mr
				g.packA(false, 1, a, lda, ic, pc, mb, kb, tiles, pa)
				for s := 0; s < kb; s += fcSubRows {
					sb := min(fcSubRows, kb-s)
					for j := j0; j < j1; j += nr {
						w := min(nr, j1-j)
						bp, ldp, pf := &pe[s*nr], nr, 0
						if w == nr {
							bp, ldp, pf = &b[(pc+s)*ldb+j], ldb, fcPrefetchPanels*4*nr
						}
						g.fcInputTiles(ic, mb, kb, s, sb, pa, 0, bp, ldp, pf, sums, ld, j-j0, c, ldc, j, w, bb, load)
					}
				}
			}
		}
	}
}

// fcInputTiles runs the product of rows [s, s+sb) of a depth block of kb
// rows for the mb rows of the input gradient from ic, in its row tiles (mb
// split as evenly as the tiles allow), packed from pa at aoff, against the
// panel bp of w columns: the sums resume from and go back to the buffer
// (column col of rows of cw), and at the block's last row they are added
// into c at column j with the block's beta.
func (g *gemmImpl) fcInputTiles(ic, mb, kb, s, sb int, pa []float32, aoff int, bp *float32, ldp, pf int, sums []float32, cw, col int, c []float32, ldc, j, w int, bb float32, load bool) {
	tiles := (mb + g.mr - 1) / g.mr
	base, extra := mb/tiles, mb%tiles
	row := 0
	for t := range tiles {
		h := base
		if t < extra {
			h++
		}
		tile := sums[(ic+row)*cw+col:]
		var from *float32
		if s > 0 {
			from = &tile[0]
		}
		if s+sb == kb {
			g.fc.packed(h, sb, &pa[aoff+s*h], bp, ldp, pf, from, cw, &c[(ic+row)*ldc+j], ldc, w, bb, load)
		} else {
			g.fc.packed(h, sb, &pa[aoff+s*h], bp, ldp, pf, from, cw, &tile[0], cw, g.nr, 0, false)
		}
		aoff += h * kb
		row += h
		pf = 0
	}
}

// fcWeightGrad computes rows [m0, m1) of C = Aᵀ·B + beta·C (c starting at
// row m0), in chunks of
// columns whose block of B stays in L2: every tile of mr rows of C is
// updated along the chunk, row by row in order, from its packed rows of
// Aᵀ and the panels of B read in place (a panel narrower than nr, the
// last, copied once per chunk).
func (g *gemmImpl) fcWeightGrad(m0, m1, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	nr, mr := g.nr, g.mr
	kc := split(k, g.kc, 1)
	cw := max(nr, fcPackBudget/k/nr*nr)
	ws := workspaces.get()
	defer workspaces.put(ws)
	pa, pe := ws.buffers(mr*k, k*nr)
	for j0 := 0; j0 < n; j0 += cw {
		j1 := min(n, j0+cw)
		je := j1 - (j1-j0)%nr // the edge panel, if je < j1
		if je < j1 {
			w := j1 - je
			for p := 0; p < k; p++ {
				row := pe[p*nr : (p+1)*nr]
				copy(row, b[p*ldb+je:][:w])
				clear(row[w:])
			}
		}
		for i := m0; i < m1; i += mr {
			h := min(mr, m1-i)
			for pc := 0; pc < k; pc += kc {
				g.packA(true, 1, a, lda, i, pc, h, min(kc, k-pc), 1, pa[pc*h:])
			}
			for pc := 0; pc < k; pc += kc {
				kb := min(kc, k-pc)
				bb, load := fcBlockBeta(pc, beta)
				for j := j0; j < j1; j += nr {
					w := min(nr, j1-j)
					bp, ldp := &b[pc*ldb+j], ldb
					if w < nr {
						bp, ldp = &pe[pc*nr], nr
					}
					g.fc.packed(h, kb, &pa[pc*h], bp, ldp, 0, nil, 0, &c[(i-m0)*ldc+j], ldc, w, bb, load)
				}
			}
		}
	}
}
