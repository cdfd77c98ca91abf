package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The fully connected kernels compute one mr×nr tile of C as the SGEMM
// microkernels do (the same multiply-adds in the same order, so the same
// bits), but read one operand where it lies instead of from a packed copy:
//
//	fcRows:   A in place, row i at a + i*lda, step p reading a[i*lda+p];
//	          B rows ldb floats apart (a packed panel has ldb = NR).
//	fcPacked: A packed k-major (a[p*mr+i]) as for the microkernels;
//	          B in place, rows ldb floats apart, two full vectors a row;
//	          with pf != 0 every step also prefetches into L2 the bytes
//	          pf after the B row it reads (the next panel along the row).
//
// Both then update the first nr columns of the tile in C exactly as the
// microkernels do: C = acc + beta*C (one FMA) when loadC, else C = acc.
const (
	fcRowsSignature   = "func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, nr int, beta float32, loadC bool)"
	fcPackedSignature = "func(k int, a, b *float32, ldb, pf int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool)"
)

func buildFC(c *build.Context) {
	for mr := 1; mr <= isa512.mrMax; mr++ {
		fcKernel(c, isa512, mr, true, operand.Mem{})
		fcKernel(c, isa512, mr, false, operand.Mem{})
	}
	// Lane masks for the AVX2 edge stores, as for the microkernels.
	masks := c.StaticGlobal("fcMaskAVX2")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 16; i++ {
		v := uint32(0)
		if i < 8 {
			v = 0xffffffff
		}
		c.AddDatum(4*i, operand.U32(v))
	}
	for mr := 1; mr <= isa256.mrMax; mr++ {
		fcKernel(c, isa256, mr, true, masks)
		fcKernel(c, isa256, mr, false, masks)
	}
}

// fcRowAddr returns the address of row i of an in-place A: one of three
// row pointers (rows 0, 5 and 10) plus a multiple of the row stride L or
// of 3L, which x86 addressing scales by 1, 2, 4 or 8.
func fcRowAddr(i, disp int, base [3]reg.Register, l, l3 reg.Register) operand.Mem {
	type at struct {
		base, mul int // row pointer index, multiple of L
	}
	table := []at{
		{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 0}, {0, 6}, {1, 2},
		{0, 8}, {1, 4}, {2, 0}, {1, 6}, {0, 12}, {1, 8},
	}
	t := table[i]
	m := operand.Mem{Base: base[t.base], Disp: disp}
	switch t.mul {
	case 0:
	case 1, 2, 4, 8:
		m.Index, m.Scale = l, uint8(t.mul)
	case 3, 6, 12:
		m.Index, m.Scale = l3, uint8(t.mul/3)
	}
	return m
}

// fcKernel emits one kernel: fcRows when rows, else fcPacked.
func fcKernel(c *build.Context, isa gemmISA, mr int, rows bool, masks operand.Mem) {
	kind, sig := "Packed", fcPackedSignature
	if rows {
		kind, sig = "Rows", fcRowsSignature
	}
	isaName := isa.name[len("sgemm"):]
	name := fmt.Sprintf("fc%s%sx%d", kind, isaName, mr)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	if rows {
		c.Doc(fmt.Sprintf("%s updates a %d×nr tile of C with the product of a %d-row block of A read in place and k rows of B.", name, mr, mr))
	} else {
		c.Doc(fmt.Sprintf("%s updates a %d×nr tile of C with the product of a packed %d-row panel of A and k rows of B read in place.", name, mr, mr))
	}

	k, a, b, ldb := reg.RCX, reg.RAX, reg.RBX, reg.R8
	l, l3, pf := reg.RSI, reg.RDI, reg.R9
	base := [3]reg.Register{a, reg.R10, reg.R11}
	c.Load(c.Param("k"), k)
	c.Load(c.Param("a"), a)
	c.Load(c.Param("b"), b)
	c.Load(c.Param("ldb"), ldb)
	c.SHLQ(operand.U8(2), ldb)
	if rows {
		c.Load(c.Param("lda"), l)
		c.SHLQ(operand.U8(2), l)
		c.LEAQ(operand.Mem{Base: l, Index: l, Scale: 2}, l3)
		if mr > 5 {
			c.LEAQ(operand.Mem{Base: a, Index: l, Scale: 4}, base[1])
			c.ADDQ(l, base[1])
		}
		if mr > 10 {
			c.LEAQ(operand.Mem{Base: base[1], Index: l, Scale: 4}, base[2])
			c.ADDQ(l, base[2])
		}
	} else {
		c.Load(c.Param("pf"), pf)
	}
	// Prefetch the C tile.
	c.Load(c.Param("c"), reg.R12)
	c.Load(c.Param("ldc"), reg.R13)
	c.SHLQ(operand.U8(2), reg.R13)
	for i := 0; i < mr; i++ {
		c.PREFETCHT0(operand.Mem{Base: reg.R12})
		c.PREFETCHT0(operand.Mem{Base: reg.R12, Disp: 2*isa.bytes - 4})
		if i < mr-1 {
			c.ADDQ(reg.R13, reg.R12)
		}
	}

	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	b0, b1 := isa.vec(isa.regs-4), isa.vec(isa.regs-3)
	bc := []reg.VecPhysical{isa.vec(isa.regs - 2), isa.vec(isa.regs - 1)}
	if !rows {
		c.Load(c.Param("t"), reg.R12)
		c.TESTQ(reg.R12, reg.R12)
		c.JZ(operand.LabelRef("zero"))
		c.Load(c.Param("ldt"), reg.R13)
		c.SHLQ(operand.U8(2), reg.R13)
		for i := 0; i < mr; i++ {
			c.VMOVUPS(operand.Mem{Base: reg.R12}, acc(i, 0))
			c.VMOVUPS(operand.Mem{Base: reg.R12, Disp: isa.bytes}, acc(i, 1))
			if i < mr-1 {
				c.ADDQ(reg.R13, reg.R12)
			}
		}
		c.JMP(operand.LabelRef("start"))
		c.Label("zero")
	}
	for i := 0; i < mr; i++ {
		for h := 0; h < 2; h++ {
			r := acc(i, h)
			if isa.bytes == 64 {
				c.VPXORD(r, r, r)
			} else {
				c.VXORPS(r, r, r)
			}
		}
	}
	if !rows {
		c.Label("start")
	}
	aAddr := func(i, u int) operand.Mem {
		if rows {
			return fcRowAddr(i, 4*u, base, l, l3)
		}
		return operand.Mem{Base: a, Disp: 4 * (u*mr + i)}
	}
	step := func(u int, prefetch bool) {
		c.VMOVUPS(operand.Mem{Base: b}, b0)
		c.VMOVUPS(operand.Mem{Base: b, Disp: isa.bytes}, b1)
		if prefetch {
			c.PREFETCHT1(operand.Mem{Base: b, Index: pf, Scale: 1})
			c.PREFETCHT1(operand.Mem{Base: b, Index: pf, Scale: 1, Disp: 2*isa.bytes - 4})
		}
		for i := 0; i < mr; i++ {
			r := bc[i%2]
			c.VBROADCASTSS(aAddr(i, u), r)
			c.VFMADD231PS(r, b0, acc(i, 0))
			c.VFMADD231PS(r, b1, acc(i, 1))
		}
		c.ADDQ(ldb, b)
	}
	advance := func(steps int) {
		if !rows {
			c.ADDQ(operand.U32(4*steps*mr), a)
			return
		}
		c.ADDQ(operand.U32(4*steps), a)
		if mr > 5 {
			c.ADDQ(operand.U32(4*steps), base[1])
		}
		if mr > 10 {
			c.ADDQ(operand.U32(4*steps), base[2])
		}
	}
	const unroll = 4
	loop := func(suffix string, prefetch bool) {
		c.MOVQ(k, reg.RDX)
		c.SHRQ(operand.U8(2), reg.RDX)
		c.JZ(operand.LabelRef("tail" + suffix))
		c.Label("loop4" + suffix)
		for u := 0; u < unroll; u++ {
			step(u, prefetch)
		}
		advance(unroll)
		c.DECQ(reg.RDX)
		c.JNZ(operand.LabelRef("loop4" + suffix))
		c.Label("tail" + suffix)
		c.ANDQ(operand.U8(unroll-1), k)
		c.JZ(operand.LabelRef("update"))
		c.Label("loop1" + suffix)
		step(0, prefetch)
		advance(1)
		c.DECQ(k)
		c.JNZ(operand.LabelRef("loop1" + suffix))
	}
	if !rows {
		c.TESTQ(pf, pf)
		c.JNZ(operand.LabelRef("prefetching"))
	}
	loop("", false)
	if !rows {
		c.JMP(operand.LabelRef("update"))
		c.Label("prefetching")
		loop("pf", true)
	}
	c.Label("update")
	c.Load(c.Param("c"), reg.RDI)
	c.Load(c.Param("ldc"), reg.RSI)
	c.SHLQ(operand.U8(2), reg.RSI)
	if isa.bytes == 64 {
		gemmUpdate512(c, isa, mr)
	} else {
		gemmUpdate256(c, isa, mr, masks)
	}
}
