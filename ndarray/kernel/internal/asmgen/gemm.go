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
	vec   func(i int) reg.VecPhysical
	mrMax int
}

var (
	isa512 = gemmISA{name: "sgemmAVX512", bytes: 64, vec: zmm, mrMax: mr512}
	isa256 = gemmISA{name: "sgemmAVX2", bytes: 32, vec: ymm, mrMax: mr256}
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
}

// gemmLoop emits the k loop shared by both instruction sets: per step, load
// two vectors of B and for every row broadcast one float of A and multiply
// it into that row's two accumulators. The loop is unrolled four times.
func gemmLoop(c *build.Context, isa gemmISA, mr int) {
	k, a, b := reg.RCX, reg.RAX, reg.RBX
	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	nregs := 16
	if isa.bytes == 64 {
		nregs = 32
	}
	b0, b1 := isa.vec(nregs-4), isa.vec(nregs-3)
	bc := []reg.VecPhysical{isa.vec(nregs - 2), isa.vec(nregs - 1)}
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

	// Masks of the first nr lanes of the 32: K1 = low 16 bits, K2 = high.
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

// gemmKernel256 emits the AVX2 kernel for mr rows. Full tiles use plain
// loads and stores; edge tiles use VMASKMOVPS with masks from the table.
func gemmKernel256(c *build.Context, mr int, masks operand.Mem) {
	isa := isa256
	gemmPrologue(c, isa, mr)
	gemmLoop(c, isa, mr)

	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	m0, m1, t, beta := isa.vec(12), isa.vec(13), isa.vec(14), isa.vec(15)
	c.Load(c.Param("loadC"), reg.R11B)
	c.Load(c.Param("nr"), reg.R8)
	c.CMPQ(reg.R8, operand.U8(16))
	c.JL(operand.LabelRef("edge"))

	// Full tile.
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

	// Edge tile: lanes lo = min(nr, 8) of the first vector and
	// hi = max(nr-8, 0) of the second.
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
