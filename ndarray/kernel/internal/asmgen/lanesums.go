package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The lane sums of the direct convolution's weight gradient: dst[i] plus
// the sum of the lanes of vector i, the lanes added first to last. A block
// of vectors (16 with AVX-512, 8 with AVX2) is transposed so that lane i
// of column j holds lane j of vector i, and the columns are added in
// order. The transposition's 128-bit stage is done by the loads: each
// register is filled with one 128-bit quarter of four vectors, four apart
// (VINSERTF32X4 or VINSERTF128 from memory, which run beside the load
// ports, not on the shuffle port), so only the in-lane interleaves of
// floats and float pairs remain as shuffles. The last, partial block
// reads the vectors past the last one from the last one (their lanes are
// not stored).

func buildLaneSums(c *build.Context) {
	tab := c.StaticGlobal("laneSumsConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(l))
	}
	for _, set := range []bool{false, true} {
		laneSumsQuarters512(c, set)
		laneSumsQuarters256(c, tab, set)
	}
}

// laneSumsName is the name of a lane-sums kernel: laneSums{,Set}ISA, the
// Set kernels storing the sums to dst instead of adding them.
func laneSumsName(isa string, set bool) string {
	if set {
		return "laneSumsSet" + isa
	}
	return "laneSums" + isa
}

// laneSumsRows sets rows[q] to the address of vector r+4q of the block at
// src (vec bytes apart), or of the last vector, at last, if r+4q is past it.
func laneSumsRows(c *build.Context, src, last reg.Register, rows []reg.Register, r, vec int) {
	for q, p := range rows {
		i := r + 4*q
		if i == 0 {
			c.MOVQ(src, p)
			continue
		}
		c.LEAQ(operand.Mem{Base: src, Disp: vec * i}, p)
		c.CMPQ(p, last)
		c.CMOVQGT(last, p)
	}
}

// laneSumsTransposeAdd adds, in column order, the columns 4k..4k+3 of
// the in-lane 4×4 transpose of q (quarter k of the vectors, the
// registers' 128-bit lane l holding vectors r+4l) into sum: the
// interleaves of floats go into t, of float pairs into col. Column 0 is
// the first term of the sum.
func laneSumsTransposeAdd(c *build.Context, k int, q, t, col [4]reg.VecPhysical, sum reg.VecPhysical) {
	c.VUNPCKLPS(q[1], q[0], t[0])
	c.VUNPCKHPS(q[1], q[0], t[1])
	c.VUNPCKLPS(q[3], q[2], t[2])
	c.VUNPCKHPS(q[3], q[2], t[3])
	c.VUNPCKLPD(t[2], t[0], col[0])
	c.VUNPCKHPD(t[2], t[0], col[1])
	c.VUNPCKLPD(t[3], t[1], col[2])
	c.VUNPCKHPD(t[3], t[1], col[3])
	for e := 0; e < 4; e++ {
		switch {
		case k == 0 && e == 0:
		case k == 0 && e == 1:
			c.VADDPS(col[1], col[0], sum)
		default:
			c.VADDPS(col[e], sum, sum)
		}
	}
}

// laneSumsQuarters512 emits laneSumsAVX512 (laneSumsSetAVX512 with set):
// two blocks of 16 vectors at a time, their quarters interleaved so that
// the two chains of additions overlap, then one block, then the last,
// partial one.
func laneSumsQuarters512(c *build.Context, set bool) {
	name := laneSumsName("AVX512", set)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, src *float32, n int)")
	if set {
		c.Doc(name + " sets dst[i] to the sum of the 16 floats src[16i:16i+16], for i < n.")
	} else {
		c.Doc(name + " adds to dst[i] the sum of the 16 floats src[16i:16i+16], for i < n.")
	}
	dst, src, n, last := reg.RDI, reg.RSI, reg.RCX, reg.RDX
	rows := []reg.Register{reg.R8, reg.R9, reg.R10, reg.R11}
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("n"), n)
	regs := func(first int) (v [4]reg.VecPhysical) {
		for i := range v {
			v[i] = zmm(first + i)
		}
		return v
	}
	// load fills q with quarter k of vectors r, r+4, r+8, r+12 (at rowAt(l) for vector r+4l).
	load := func(q reg.VecPhysical, k int, rowAt func(l int) operand.Mem) {
		m := rowAt(0)
		m.Disp += 16 * k
		c.VMOVUPS(m, q.AsX())
		for l := 1; l < 4; l++ {
			m := rowAt(l)
			m.Disp += 16 * k
			c.VINSERTF32X4(operand.U8(l), m, q, q)
		}
	}
	// blocks sums nb whole blocks at src into dst.
	blocks := func(nb int) {
		for k := 0; k < 4; k++ {
			for b := 0; b < nb; b++ {
				q := regs(12 * b)
				for r := 0; r < 4; r++ {
					load(q[r], k, func(l int) operand.Mem { return operand.Mem{Base: src, Disp: 1024*b + 64*(r+4*l)} })
				}
				laneSumsTransposeAdd(c, k, q, regs(12*b+4), regs(12*b+8), zmm(24+b))
			}
		}
		for b := 0; b < nb; b++ {
			d := operand.Mem{Base: dst, Disp: 64 * b}
			if !set {
				c.VADDPS(d, zmm(24+b), zmm(24+b))
			}
			c.VMOVUPS(zmm(24+b), d)
		}
		c.ADDQ(operand.U32(64*nb), dst)
		c.ADDQ(operand.U32(1024*nb), src)
		c.SUBQ(operand.U8(16*nb), n)
	}
	c.Label("pairs")
	c.CMPQ(n, operand.U8(32))
	c.JLT(operand.LabelRef("single"))
	blocks(2)
	c.JMP(operand.LabelRef("pairs"))
	c.Label("single")
	c.CMPQ(n, operand.U8(16))
	c.JLT(operand.LabelRef("tail"))
	blocks(1)

	// The last, partial block of n < 16 vectors, in one of four versions
	// by the number of 128-bit lanes of the sums it needs (nl): a
	// register's lanes l >= nl are not loaded (zero), the vectors past the
	// last one in lane nl-1 read as the last one.
	c.Label("tail")
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.MOVL(operand.U32(0xffff), reg.EAX)
	c.BZHIL(reg.ECX, reg.EAX, reg.EAX)
	c.KMOVW(reg.EAX, reg.K1)
	c.MOVQ(n, last)
	c.SHLQ(operand.U8(6), last)
	c.LEAQ(operand.Mem{Base: src, Index: last, Scale: 1, Disp: -64}, last)
	for nl := 1; nl < 4; nl++ {
		c.CMPQ(n, operand.U8(4*nl))
		c.JLE(operand.LabelRef(fmt.Sprintf("tail%d", nl)))
	}
	c.JMP(operand.LabelRef("tail4"))
	for nl := 1; nl <= 4; nl++ {
		c.Label(fmt.Sprintf("tail%d", nl))
		// q[k][r]: quarter k of vectors r, r+4, r+8, r+12.
		var q [4][4]reg.VecPhysical
		for r := 0; r < 4; r++ {
			laneSumsRows(c, src, last, rows[:nl], r, 64)
			for k := 0; k < 4; k++ {
				q[k][r] = zmm(4*k + r)
				m := operand.Mem{Base: rows[0], Disp: 16 * k}
				c.VMOVUPS(m, q[k][r].AsX())
				for l := 1; l < nl; l++ {
					m := operand.Mem{Base: rows[l], Disp: 16 * k}
					c.VINSERTF32X4(operand.U8(l), m, q[k][r], q[k][r])
				}
			}
		}
		sum := zmm(24)
		for k := 0; k < 4; k++ {
			laneSumsTransposeAdd(c, k, q[k], regs(16), regs(20), sum)
		}
		if !set {
			c.VMOVUPS_Z(operand.Mem{Base: dst}, reg.K1, zmm(16))
			c.VADDPS(zmm(16), sum, sum)
		}
		c.VMOVUPS(sum, reg.K1, operand.Mem{Base: dst})
		if nl < 4 {
			c.JMP(operand.LabelRef("done"))
		}
	}
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// laneSumsQuarters256 emits laneSumsAVX2 (laneSumsSetAVX2 with set):
// blocks of 8 vectors, each register holding one 128-bit half of vectors
// r and r+4.
func laneSumsQuarters256(c *build.Context, tab operand.Mem, set bool) {
	name := laneSumsName("AVX2", set)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, src *float32, n int)")
	if set {
		c.Doc(name + " sets dst[i] to the sum of the 8 floats src[8i:8i+8], for i < n.")
	} else {
		c.Doc(name + " adds to dst[i] the sum of the 8 floats src[8i:8i+8], for i < n.")
	}
	dst, src, n, last := reg.RDI, reg.RSI, reg.RCX, reg.RDX
	rows := []reg.Register{reg.R8, reg.R9}
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("n"), n)
	q := make([][4]reg.VecPhysical, 2)
	t := make([][4]reg.VecPhysical, 2)
	col := make([][4]reg.VecPhysical, 2)
	for k := range q {
		for r := 0; r < 4; r++ {
			q[k][r] = ymm(4*k + r)
			t[k][r] = ymm(8 + r)
			col[k][r] = ymm(12 + r)
		}
	}
	sum := ymm(0)
	load := func(k, r int, rowAt func(q int) operand.Mem) {
		m := rowAt(0)
		m.Disp += 16 * k
		c.VMOVUPS(m, q[k][r].AsX())
		m = rowAt(1)
		m.Disp += 16 * k
		c.VINSERTF128(operand.U8(1), m, q[k][r], q[k][r])
	}
	c.Label("block")
	c.CMPQ(n, operand.U8(8))
	c.JLT(operand.LabelRef("tail"))
	// Quarter by quarter, so that the shuffles can start early.
	for k := 0; k < 2; k++ {
		for r := 0; r < 4; r++ {
			load(k, r, func(l int) operand.Mem { return operand.Mem{Base: src, Disp: 32 * (r + 4*l)} })
		}
	}
	for k := range q {
		laneSumsTransposeAdd(c, k, q[k], t[k], col[k], sum)
	}
	if !set {
		c.VADDPS(operand.Mem{Base: dst}, sum, sum)
	}
	c.VMOVUPS(sum, operand.Mem{Base: dst})
	c.ADDQ(operand.U8(32), dst)
	c.ADDQ(operand.U32(256), src)
	c.SUBQ(operand.U8(8), n)
	c.JMP(operand.LabelRef("block"))

	c.Label("tail")
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.MOVQ(n, last)
	c.SHLQ(operand.U8(5), last)
	c.LEAQ(operand.Mem{Base: src, Index: last, Scale: 1, Disp: -32}, last)
	for r := 0; r < 4; r++ {
		laneSumsRows(c, src, last, rows, r, 32)
		for k := 0; k < 2; k++ {
			load(k, r, func(l int) operand.Mem { return operand.Mem{Base: rows[l]} })
		}
	}
	for k := range q {
		laneSumsTransposeAdd(c, k, q[k], t[k], col[k], sum)
	}
	lanesBelowDirect(c, tab, n, reg.Y1)
	if !set {
		c.VMASKMOVPS(operand.Mem{Base: dst}, reg.Y1, reg.Y2)
		c.VADDPS(reg.Y2, sum, sum)
	}
	c.VMASKMOVPS(sum, reg.Y1, operand.Mem{Base: dst})
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}
