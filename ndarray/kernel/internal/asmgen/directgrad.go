package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// buildDirectGrad emits the weight-gradient kernels of the direct
// convolution for operands laid out in the order the kernel reads them
// (see package kernel's DirectConv.WeightGrad):
//
//	directGradSeq*xMR   the weight gradient of MR output channels and GNR
//	                    weights, summed over the pixels of a block in lanes;
//	                    the gradient's pixels (MR vectors each) a stride
//	                    apart, the input's one after the other in a row
func buildDirectGrad(c *build.Context) {
	for _, isa := range []directISA{direct512, direct256} {
		for mr := 1; mr <= isa.gmr; mr++ {
			directGradSeq(c, isa, mr)
		}
	}
}

// directGradSeq emits directGradSeq{AVX512,AVX2}xMR:
//
//	acc[i][j] (+)= Σ over oh×ow pixels p of dy[p][i] · x[p + offs[j]]
//
// for i < mr and j < gnr, a vector each. The pixels of dy (mr vectors
// each) are dyStep bytes apart in a row, a row's end dySkip bytes before
// the next row's start; those of x one vector apart in a row, and a row's
// end xSkip bytes before the next row's start; acc rows (i) are accRow
// bytes apart, its vectors (j) adjacent. The pixels of a row go two at a
// time, each pixel's products in the same order as one at a time, so that
// every sum runs over the pixels in order. The call repeats for groups
// groups of weights, each group's gnr offsets and sums following the
// last's, so that a chunk of weights costs one call. With AVX-512, each
// pair of pixels prefetches the two lines pf bytes past the first
// weight's input vectors (see prefetchAhead); AVX2 ignores pf.
func directGradSeq(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("directGradSeq%sx%d", isa.suffix, mr)
	gradFunction(c, name, fmt.Sprintf("%s sums the weight gradient of %d output channels and %d weights over a block (see directKernels.gradSeq).", name, mr, isa.gnr))
	nr := isa.gnr
	dy, x, ox, oy, skip, t, ow := reg.RSI, reg.RBX, reg.RCX, reg.RDX, reg.R13, reg.RAX, reg.R14
	dstep := reg.RDI
	offReg := []reg.Register{reg.R8, reg.R9, reg.R10, reg.R11, reg.R12}[:nr]
	acc := func(i, j int) reg.VecPhysical { return isa.vec(i*nr + j) }
	dyv := func(i int) reg.VecPhysical { return isa.vec(isa.gmr*nr + i) }
	xv := isa.vec(isa.gmr*nr + isa.gmr)

	c.CMPQ(paramAddr(c, "groups"), operand.U8(0))
	c.JLE(operand.LabelRef("done"))
	c.Label("group")
	c.Load(c.Param("offs"), t)
	for j, r := range offReg {
		c.MOVLQSX(operand.Mem{Base: t, Disp: 4 * j}, r)
	}
	pf := reg.R15
	if isa.bytes == 64 {
		c.Load(c.Param("pf"), pf)
		c.ADDQ(offReg[0], pf)
	}
	gradSumsIn(c, isa, mr, nr, acc, t)
	c.Load(c.Param("dy"), dy)
	c.Load(c.Param("dyStep"), dstep)
	c.Load(c.Param("x"), x)
	c.Load(c.Param("xSkip"), skip)
	c.Load(c.Param("ow"), ow)
	c.Load(c.Param("oh"), oy)
	c.TESTQ(oy, oy)
	c.JLE(operand.LabelRef("store"))
	c.TESTQ(ow, ow)
	c.JLE(operand.LabelRef("store"))

	// pixel emits pixel h of the iteration's (dy and x vectors h on).
	pixel := func(h int) {
		for i := 0; i < mr; i++ {
			m := operand.Mem{Base: dy, Disp: i * isa.bytes}
			if h == 1 {
				m.Index, m.Scale = dstep, 1
			}
			c.VMOVUPS(m, dyv(i))
		}
		for j, r := range offReg {
			c.VMOVUPS(operand.Mem{Base: x, Index: r, Scale: 1, Disp: h * isa.bytes}, xv)
			for i := 0; i < mr; i++ {
				c.VFMADD231PS(xv, dyv(i), acc(i, j))
			}
		}
	}
	c.Label("row")
	c.MOVQ(ow, ox)
	c.CMPQ(ox, operand.U8(2))
	c.JL(operand.LabelRef("single"))
	c.Label("pair")
	if isa.bytes == 64 {
		prefetchAhead(c, x, pf)
	}
	pixel(0)
	pixel(1)
	c.ADDQ(operand.U32(2*isa.bytes), x)
	c.LEAQ(operand.Mem{Base: dy, Index: dstep, Scale: 2}, dy)
	c.SUBQ(operand.U8(2), ox)
	c.CMPQ(ox, operand.U8(2))
	c.JGE(operand.LabelRef("pair"))
	c.Label("single")
	c.TESTQ(ox, ox)
	c.JZ(operand.LabelRef("rowEnd"))
	pixel(0)
	c.ADDQ(operand.U32(isa.bytes), x)
	c.ADDQ(dstep, dy)
	c.Label("rowEnd")
	c.ADDQ(skip, x)
	c.ADDQ(paramAddr(c, "dySkip"), dy)
	c.DECQ(oy)
	c.JNZ(operand.LabelRef("row"))

	gradSumsOut(c, isa, mr, nr, acc, t)
}

// prefetchAhead prefetches into the first-level cache the two lines (a
// pair of pixels' input vectors) at base+index: the weight-gradient
// kernels point index pf bytes past their first weight's vectors, an
// input channel ahead, so that the rows the next groups of weights read
// arrive while this group's sums run (AlexNet's channel-major inputs are
// 2.8–3.7 MB a block, past the L2 cache, and the next channel's rows
// would otherwise stall the start of each group's streams).
func prefetchAhead(c *build.Context, base, index reg.Register) {
	c.PREFETCHT0(operand.Mem{Base: base, Index: index, Scale: 1})
	c.PREFETCHT0(operand.Mem{Base: base, Index: index, Scale: 1, Disp: 64})
}

// gradSumsIn emits the start of a weight-gradient kernel's group of
// weights: its sums acc(i, j), i < mr, j < nr, read from the rows of acc
// (accRow bytes apart, a vector a weight) where load is set, else zero;
// t is a scratch register. It ends at label "start".
func gradSumsIn(c *build.Context, isa directISA, mr, nr int, acc func(i, j int) reg.VecPhysical, t reg.Register) {
	c.Load(c.Param("acc"), t)
	c.CMPB(paramAddr(c, "load"), operand.U8(0))
	c.JEQ(operand.LabelRef("zero"))
	for i := range mr {
		for j := range nr {
			c.VMOVUPS(operand.Mem{Base: t, Disp: j * isa.bytes}, acc(i, j))
		}
		if i < mr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.JMP(operand.LabelRef("start"))
	c.Label("zero")
	for i := range mr {
		for j := range nr {
			zero(c, isa, acc(i, j))
		}
	}
	c.Label("start")
}

// gradSumsOut emits the end of a group, from label "store": the sums
// stored back to acc, and the next group's offsets (nr on) and sums (nr
// vectors on) taken while groups remain, from label "group"; then the
// return.
func gradSumsOut(c *build.Context, isa directISA, mr, nr int, acc func(i, j int) reg.VecPhysical, t reg.Register) {
	c.Label("store")
	c.Load(c.Param("acc"), t)
	for i := range mr {
		for j := range nr {
			c.VMOVUPS(acc(i, j), operand.Mem{Base: t, Disp: j * isa.bytes})
		}
		if i < mr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.ADDQ(operand.U8(4*nr), paramAddr(c, "offs"))
	c.ADDQ(operand.U32(nr*isa.bytes), paramAddr(c, "acc"))
	c.DECQ(paramAddr(c, "groups"))
	c.JNZ(operand.LabelRef("group"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// gradFunction declares the weight-gradient kernel name, whose signature
// all of them share (see package kernel's directKernels.gradSeq), with
// its doc.
func gradFunction(c *build.Context, name, doc string) {
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups int, pf int)")
	c.Doc(doc)
}
