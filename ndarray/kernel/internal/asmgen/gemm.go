package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The SGEMM microkernels compute one mr×nr tile of C from packed panels:
//
//	a: mr×k, stored k-major (a[p*mr+i] = A[i][p]), alpha already applied
//	b: k×NR, stored row by row (b[p*NR+j] = B[p][j]), zero padded to NR
//
// and then update the first nr (<= NR) columns of the tile in C, whose rows
// are ldc floats apart: C = acc + beta*C when loadC, else C = acc (C is not
// read). Each kernel keeps the whole tile in registers: two vectors per row,
// so NR is 32 with AVX-512 and 16 with AVX2. One kernel is generated for
// every row count 1..MR, so edge tiles run without padding.
const (
	mr512 = 14 // 28 accumulators + 2 B vectors + 2 broadcast registers = 32 zmm
	mr256 = 6  // 12 accumulators + 2 B vectors + 2 broadcast registers = 16 ymm
)

const gemmSignature = "func(k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool)"

// gemmISA describes a vector instruction set for the kernel generator.
type gemmISA struct {
	name  string // function name prefix
	bytes int    // vector size in bytes
	regs  int    // vector registers
	vec   func(i int) reg.VecPhysical
	mrMax int
}

var (
	isa512 = gemmISA{name: "sgemmAVX512", bytes: 64, regs: 32, vec: zmm, mrMax: mr512}
	isa256 = gemmISA{name: "sgemmAVX2", bytes: 32, regs: 16, vec: ymm, mrMax: mr256}
)

func zmm(i int) reg.VecPhysical {
	return []reg.VecPhysical{
		reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
		reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
		reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23,
		reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31,
	}[i]
}

func ymm(i int) reg.VecPhysical {
	return []reg.VecPhysical{
		reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
		reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15,
	}[i]
}

func buildGemm(c *build.Context) {
	for mr := 1; mr <= isa512.mrMax; mr++ {
		gemmKernel(c, isa512, mr)
	}
	// Lane masks for the AVX2 edge stores: 8 set lanes then 8 clear ones;
	// loading 8 lanes at float offset 8-r gives a mask of the first r lanes.
	masks := c.StaticGlobal("gemmMaskAVX2")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 16; i++ {
		v := uint32(0)
		if i < 8 {
			v = 0xffffffff
		}
		c.AddDatum(4*i, operand.U32(v))
	}
	for mr := 1; mr <= isa256.mrMax; mr++ {
		gemmKernel256(c, mr, masks)
	}
	copyChunks(c, isa512)
	copyChunks(c, isa256)
	packA512(c)
}

// gemmLoop emits the k loop shared by both instruction sets: per step, load
// two vectors of B and for every row broadcast one float of A and multiply
// it into that row's two accumulators. The loop is unrolled four times.
func gemmLoop(c *build.Context, isa gemmISA, mr int) {
	k, a, b := reg.RCX, reg.RAX, reg.RBX
	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	b0, b1 := isa.vec(isa.regs-4), isa.vec(isa.regs-3)
	bc := []reg.VecPhysical{isa.vec(isa.regs - 2), isa.vec(isa.regs - 1)}
	rowBytes := 2 * isa.bytes

	for i := 0; i < mr; i++ {
		for h := 0; h < 2; h++ {
			r := acc(i, h)
			if isa.bytes == 64 {
				c.VPXORD(r, r, r) // VXORPS on zmm would need AVX512DQ
			} else {
				c.VXORPS(r, r, r)
			}
		}
	}
	step := func(u int) {
		c.VMOVUPS(operand.Mem{Base: b, Disp: u * rowBytes}, b0)
		c.VMOVUPS(operand.Mem{Base: b, Disp: u*rowBytes + isa.bytes}, b1)
		for i := 0; i < mr; i++ {
			r := bc[i%2]
			c.VBROADCASTSS(operand.Mem{Base: a, Disp: 4 * (u*mr + i)}, r)
			c.VFMADD231PS(r, b0, acc(i, 0))
			c.VFMADD231PS(r, b1, acc(i, 1))
		}
	}
	const unroll = 4
	c.MOVQ(k, reg.RDX)
	c.SHRQ(operand.U8(2), reg.RDX)
	c.JZ(operand.LabelRef("tail"))
	c.Label("loop4")
	for u := 0; u < unroll; u++ {
		step(u)
	}
	c.ADDQ(operand.U32(unroll*4*mr), a)
	c.ADDQ(operand.U32(unroll*rowBytes), b)
	c.DECQ(reg.RDX)
	c.JNZ(operand.LabelRef("loop4"))
	c.Label("tail")
	c.ANDQ(operand.U8(unroll-1), k)
	c.JZ(operand.LabelRef("update"))
	c.Label("loop1")
	step(0)
	c.ADDQ(operand.U32(4*mr), a)
	c.ADDQ(operand.U32(rowBytes), b)
	c.DECQ(k)
	c.JNZ(operand.LabelRef("loop1"))
	c.Label("update")
}

// gemmPrologue loads the arguments and prefetches the C tile.
func gemmPrologue(c *build.Context, isa gemmISA, mr int) {
	c.Function(fmt.Sprintf("%sx%d", isa.name, mr))
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(gemmSignature)
	c.Doc(fmt.Sprintf("%sx%d updates a %d×nr tile of C with the product of packed panels.", isa.name, mr, mr))
	c.Load(c.Param("k"), reg.RCX)
	c.Load(c.Param("a"), reg.RAX)
	c.Load(c.Param("b"), reg.RBX)
	c.Load(c.Param("c"), reg.RDI)
	c.Load(c.Param("ldc"), reg.RSI)
	c.SHLQ(operand.U8(2), reg.RSI)
	c.MOVQ(reg.RDI, reg.R10)
	for i := 0; i < mr; i++ {
		c.PREFETCHT0(operand.Mem{Base: reg.R10})
		c.PREFETCHT0(operand.Mem{Base: reg.R10, Disp: 2*isa.bytes - 4})
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.R10)
		}
	}
}

// gemmKernel emits the AVX-512 kernel for mr rows. The edge columns are
// handled with opmasks K1 and K2 (one per vector of the row).
func gemmKernel(c *build.Context, isa gemmISA, mr int) {
	gemmPrologue(c, isa, mr)
	gemmLoop(c, isa, mr)
	gemmUpdate512(c, isa, mr)
}

// gemmKernel256 emits the AVX2 kernel for mr rows. Full tiles use plain
// loads and stores; edge tiles use VMASKMOVPS with masks from the table.
func gemmKernel256(c *build.Context, mr int, masks operand.Mem) {
	isa := isa256
	gemmPrologue(c, isa, mr)
	gemmLoop(c, isa, mr)
	gemmUpdate256(c, isa, mr, masks)
}

// gemmUpdate512 stores the accumulators of an AVX-512 product kernel into the C tile
// at DI (rows SI bytes apart), the edge columns under opmasks K1 and K2.
func gemmUpdate512(c *build.Context, isa gemmISA, mr int) {
	c.Load(c.Param("nr"), reg.R8)
	c.MOVL(operand.U32(0xffffffff), reg.R9L)
	c.BZHIL(reg.R8L, reg.R9L, reg.R9L)
	c.KMOVW(reg.R9L, reg.K1)
	c.SHRL(operand.U8(16), reg.R9L)
	c.KMOVW(reg.R9L, reg.K2)

	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	t0, t1, beta := isa.vec(28), isa.vec(29), isa.vec(30)
	c.Load(c.Param("loadC"), reg.R11B)
	c.TESTB(reg.R11B, reg.R11B)
	c.JZ(operand.LabelRef("store"))
	c.VBROADCASTSS(paramAddr(c, "beta"), beta)
	for i := 0; i < mr; i++ {
		lo := operand.Mem{Base: reg.RDI}
		hi := operand.Mem{Base: reg.RDI, Disp: isa.bytes}
		c.VMOVUPS_Z(lo, reg.K1, t0)
		c.VMOVUPS_Z(hi, reg.K2, t1)
		c.VFMADD231PS(beta, t0, acc(i, 0))
		c.VFMADD231PS(beta, t1, acc(i, 1))
		c.VMOVUPS(acc(i, 0), reg.K1, lo)
		c.VMOVUPS(acc(i, 1), reg.K2, hi)
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.RDI)
		}
	}
	c.VZEROUPPER()
	c.RET()
	c.Label("store")
	for i := 0; i < mr; i++ {
		c.VMOVUPS(acc(i, 0), reg.K1, operand.Mem{Base: reg.RDI})
		c.VMOVUPS(acc(i, 1), reg.K2, operand.Mem{Base: reg.RDI, Disp: isa.bytes})
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.RDI)
		}
	}
	c.VZEROUPPER()
	c.RET()
}

// gemmUpdate256 stores the accumulators of an AVX2 product kernel into the C tile at
// DI (rows SI bytes apart): plain moves for a full tile, VMASKMOVPS with
// masks from the table for an edge tile.
func gemmUpdate256(c *build.Context, isa gemmISA, mr int, masks operand.Mem) {
	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	m0, m1, t, beta := isa.vec(12), isa.vec(13), isa.vec(14), isa.vec(15)
	c.Load(c.Param("loadC"), reg.R11B)
	c.Load(c.Param("nr"), reg.R8)
	c.CMPQ(reg.R8, operand.U8(16))
	c.JL(operand.LabelRef("edge"))

	c.TESTB(reg.R11B, reg.R11B)
	c.JZ(operand.LabelRef("store"))
	c.VBROADCASTSS(paramAddr(c, "beta"), beta)
	for i := 0; i < mr; i++ {
		for h := 0; h < 2; h++ {
			m := operand.Mem{Base: reg.RDI, Disp: h * isa.bytes}
			c.VFMADD231PS(m, beta, acc(i, h))
			c.VMOVUPS(acc(i, h), m)
		}
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.RDI)
		}
	}
	c.VZEROUPPER()
	c.RET()
	c.Label("store")
	for i := 0; i < mr; i++ {
		for h := 0; h < 2; h++ {
			c.VMOVUPS(acc(i, h), operand.Mem{Base: reg.RDI, Disp: h * isa.bytes})
		}
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.RDI)
		}
	}
	c.VZEROUPPER()
	c.RET()

	c.Label("edge")
	c.LEAQ(masks, reg.R12)
	c.MOVQ(operand.U32(8), reg.R9)
	c.CMPQ(reg.R8, reg.R9)
	c.CMOVQLT(reg.R8, reg.R9) // R9 = min(nr, 8)
	c.MOVQ(operand.U32(8), reg.R13)
	c.SUBQ(reg.R9, reg.R13)
	c.VMOVUPS(operand.Mem{Base: reg.R12, Index: reg.R13, Scale: 4}, m0)
	c.SUBQ(operand.U8(8), reg.R8)
	c.XORQ(reg.R9, reg.R9)
	c.CMPQ(reg.R8, reg.R9)
	c.CMOVQLT(reg.R9, reg.R8) // R8 = max(nr-8, 0)
	c.MOVQ(operand.U32(8), reg.R13)
	c.SUBQ(reg.R8, reg.R13)
	c.VMOVUPS(operand.Mem{Base: reg.R12, Index: reg.R13, Scale: 4}, m1)
	mask := []reg.VecPhysical{m0, m1}

	c.TESTB(reg.R11B, reg.R11B)
	c.JZ(operand.LabelRef("edgestore"))
	c.VBROADCASTSS(paramAddr(c, "beta"), beta)
	for i := 0; i < mr; i++ {
		for h := 0; h < 2; h++ {
			m := operand.Mem{Base: reg.RDI, Disp: h * isa.bytes}
			c.VMASKMOVPS(m, mask[h], t)
			c.VFMADD231PS(t, beta, acc(i, h))
			c.VMASKMOVPS(acc(i, h), mask[h], m)
		}
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.RDI)
		}
	}
	c.VZEROUPPER()
	c.RET()
	c.Label("edgestore")
	for i := 0; i < mr; i++ {
		for h := 0; h < 2; h++ {
			c.VMASKMOVPS(acc(i, h), mask[h], operand.Mem{Base: reg.RDI, Disp: h * isa.bytes})
		}
		if i < mr-1 {
			c.ADDQ(reg.RSI, reg.RDI)
		}
	}
	c.VZEROUPPER()
	c.RET()
}

// copyChunks emits the packing copier for one vector width: n chunks of
// two vectors (one B panel row) from src to dst, the chunks dstStride and
// srcStride floats apart. It prefetches the chunk four strides ahead.
func copyChunks(c *build.Context, isa gemmISA) {
	name := "copyChunks" + isa.name[len("sgemm"):]
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(dst, src *float32, n, dstStride, srcStride int)")
	c.Doc(fmt.Sprintf("%s copies n chunks of %d floats from src to dst; the chunks are dstStride and srcStride floats apart.", name, 2*isa.bytes/4))
	dst, src, n, ds, ss := reg.RDI, reg.RSI, reg.RCX, reg.R8, reg.R9
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("dstStride"), ds)
	c.Load(c.Param("srcStride"), ss)
	c.SHLQ(operand.U8(2), ds)
	c.SHLQ(operand.U8(2), ss)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("done"))
	v0, v1 := isa.vec(0), isa.vec(1)
	c.Label("loop")
	c.PREFETCHT0(operand.Mem{Base: src, Index: ss, Scale: 4})
	c.PREFETCHT0(operand.Mem{Base: src, Index: ss, Scale: 4, Disp: 2*isa.bytes - 4})
	c.VMOVUPS(operand.Mem{Base: src}, v0)
	c.VMOVUPS(operand.Mem{Base: src, Disp: isa.bytes}, v1)
	c.VMOVUPS(v0, operand.Mem{Base: dst})
	c.VMOVUPS(v1, operand.Mem{Base: dst, Disp: isa.bytes})
	c.ADDQ(ss, src)
	c.ADDQ(ds, dst)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// packA512 emits the AVX-512 packers for one tile of A (h <= 16 rows):
//
//	packAAVX512:      dst[p*ldd+i] = alpha*src[i*lda+p]   (A not transposed)
//	packATransAVX512: dst[p*ldd+i] = alpha*src[p*lda+i]   (A transposed)
//
// for i < h and p < kb. The first loads 16 columns of every row, transposes
// the 16×16 block in registers and stores each of the 16 output rows with
// the first h lanes enabled. It also packs transposed B panels, 16 columns
// of the panel at a time.
func packA512(c *build.Context) {
	const sig = "func(dst, src *float32, h, kb, lda, ldd int, alpha float32)"

	c.Function("packAAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc("packAAVX512 packs an h×kb tile of A (h <= 16, rows lda floats apart) k-major, scaled by alpha: dst[p*ldd+i] = alpha*src[i*lda+p].")
	dst, src, h, kb, lda := reg.RDI, reg.RSI, reg.RCX, reg.RDX, reg.R8
	t, d, hb, rem := reg.R9, reg.R10, reg.R11, reg.R12
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("h"), h)
	c.Load(c.Param("kb"), kb)
	c.Load(c.Param("lda"), lda)
	c.SHLQ(operand.U8(2), lda)
	c.Load(c.Param("ldd"), hb)
	c.SHLQ(operand.U8(2), hb)
	alpha := paramAddr(c, "alpha")
	// K1: the h row lanes of every output row.
	c.MOVL(operand.U32(0xffffffff), reg.R13L)
	c.BZHIL(reg.ECX, reg.R13L, reg.R13L)
	c.KMOVW(reg.R13L, reg.K1)
	c.MOVQ(kb, rem)
	c.ANDQ(operand.U8(15), rem)
	c.SHRQ(operand.U8(4), kb)
	c.JZ(operand.LabelRef("tail"))

	// load emits the loads of the (up to) 16 rows of one 16-column chunk;
	// masked by K2 when tail.
	load := func(tail bool, tag string) {
		c.MOVQ(src, t)
		for i := 0; i < 16; i++ {
			if i > 0 {
				c.CMPQ(h, operand.U8(i))
				c.JLE(operand.LabelRef("loaded" + tag))
			}
			if tail {
				c.VMOVUPS_Z(operand.Mem{Base: t}, reg.K2, zmm(i))
			} else {
				c.VMOVUPS(operand.Mem{Base: t}, zmm(i))
			}
			c.VMULPS_BCST(alpha, zmm(i), zmm(i))
			if i < 15 {
				c.ADDQ(lda, t)
			}
		}
		c.Label("loaded" + tag)
	}

	c.Label("chunk")
	load(false, "")
	transpose16(c)
	c.MOVQ(dst, d)
	for j := 0; j < 16; j++ {
		c.VMOVUPS(zmm(j), reg.K1, operand.Mem{Base: d})
		c.ADDQ(hb, d)
	}
	c.MOVQ(d, dst)
	c.ADDQ(operand.U8(64), src)
	c.DECQ(kb)
	c.JNZ(operand.LabelRef("chunk"))

	c.Label("tail")
	c.TESTQ(rem, rem)
	c.JZ(operand.LabelRef("done"))
	c.MOVL(operand.U32(0xffffffff), reg.R13L)
	c.BZHIL(reg.R12L, reg.R13L, reg.R13L)
	c.KMOVW(reg.R13L, reg.K2)
	load(true, "tail")
	transpose16(c)
	for j := 0; j < 16; j++ {
		c.VMOVUPS(zmm(j), reg.K1, operand.Mem{Base: dst})
		if j < 15 {
			c.CMPQ(rem, operand.U8(j+1))
			c.JEQ(operand.LabelRef("done"))
			c.ADDQ(hb, dst)
		}
	}
	c.Label("done")
	c.VZEROUPPER()
	c.RET()

	c.Function("packATransAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc("packATransAVX512 packs an h×kb tile of a transposed A (h <= 16, columns lda floats apart) k-major, scaled by alpha: dst[p*ldd+i] = alpha*src[p*lda+i].")
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("h"), h)
	c.Load(c.Param("kb"), kb)
	c.Load(c.Param("lda"), lda)
	c.SHLQ(operand.U8(2), lda)
	c.Load(c.Param("ldd"), hb)
	c.SHLQ(operand.U8(2), hb)
	c.MOVL(operand.U32(0xffffffff), reg.R13L)
	c.BZHIL(reg.ECX, reg.R13L, reg.R13L)
	c.KMOVW(reg.R13L, reg.K1)
	c.VBROADCASTSS(paramAddr(c, "alpha"), reg.Z31)
	c.TESTQ(kb, kb)
	c.JZ(operand.LabelRef("done"))
	c.Label("loop")
	c.VMULPS_Z(operand.Mem{Base: src}, reg.Z31, reg.K1, reg.Z0)
	c.VMOVUPS(reg.Z0, reg.K1, operand.Mem{Base: dst})
	c.ADDQ(lda, src)
	c.ADDQ(hb, dst)
	c.DECQ(kb)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// transpose16 transposes the 16×16 block in Z0..Z15 (row i in Zi) in place,
// using Z16..Z31 as scratch: afterwards Zj holds column j.
func transpose16(c *build.Context) {
	r := func(i int) reg.VecPhysical { return zmm(i) }
	s := func(i int) reg.VecPhysical { return zmm(16 + i) }
	// Interleave floats of row pairs.
	for i := 0; i < 16; i += 2 {
		c.VUNPCKLPS(r(i+1), r(i), s(i))
		c.VUNPCKHPS(r(i+1), r(i), s(i+1))
	}
	// Interleave float pairs of row-pair pairs.
	for i := 0; i < 16; i += 4 {
		c.VUNPCKLPD(s(i+2), s(i), r(i))
		c.VUNPCKHPD(s(i+2), s(i), r(i+1))
		c.VUNPCKLPD(s(i+3), s(i+1), r(i+2))
		c.VUNPCKHPD(s(i+3), s(i+1), r(i+3))
	}
	// Gather 128-bit lanes: blocks of 4 rows, first across 4 then 8.
	for i := 0; i < 16; i += 8 {
		for j := 0; j < 4; j++ {
			c.VSHUFF32X4(operand.U8(0x88), r(i+j+4), r(i+j), s(i+j))
			c.VSHUFF32X4(operand.U8(0xdd), r(i+j+4), r(i+j), s(i+j+4))
		}
	}
	for j := 0; j < 8; j++ {
		c.VSHUFF32X4(operand.U8(0x88), s(j+8), s(j), r(j))
		c.VSHUFF32X4(operand.U8(0xdd), s(j+8), s(j), r(j+8))
	}
}
