package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// gradRowWidth is the kernel row the directGradRow kernels take: five
// weights whose input vectors lie one after the other (a kernel row of a
// 5-wide kernel, in the channel-major input of the weight gradient).
const gradRowWidth = 5

// gradRowMR is the most output channels of a directGradRow kernel: its
// accumulators (MR × 5), the gradient vectors of two pixels (2·MR) and
// two input vectors fill the registers.
func gradRowMR(isa directISA) int {
	return (isa.regs - 2) / (gradRowWidth + 2)
}

// buildDirectGradRow emits the weight-gradient kernels of the direct
// convolution for a kernel row of five weights (see package kernel's
// directKernels.gradRow):
//
//	directGradRowAVX512xMR   directGradSeqAVX512xMR for five weights whose
//	                         input vectors are adjacent: a pair of pixels
//	                         reads six input vectors instead of ten, each
//	                         multiplied into the gradient of both pixels
//	                         where they meet it
//
// AVX-512 only: AVX2's sixteen registers hold two output channels of such
// a row (ten accumulators), which ran no faster than directGradSeqAVX2's
// tile of three channels and four weights.
func buildDirectGradRow(c *build.Context) {
	for mr := 1; mr <= gradRowMR(direct512); mr++ {
		directGradRow(c, direct512, mr)
	}
}

// directGradRow emits directGradRowAVX512xMR:
//
//	acc[i][j] (+)= Σ over oh×ow pixels p of dy[p][i] · x[p + offs[0] + j]
//
// for i < mr and j < 5, x's vectors counted from offs[0] (bytes), the
// layouts as directGradSeq's. A pair of pixels p, p+1 loads x[p+q] for
// q = 0..5 once: it meets weight q of pixel p and weight q−1 of pixel
// p+1, pixel p's product first, so that every sum runs over the pixels
// in order, as in directGradSeq. The call repeats for groups kernel rows,
// each row's offsets (five, of which the first is read) and sums
// following the last's. Each pair of pixels prefetches the two lines pf
// bytes past the row's input vectors (see prefetchAhead).
func directGradRow(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("directGradRow%sx%d", isa.suffix, mr)
	gradFunction(c, name, fmt.Sprintf("%s sums the weight gradient of %d output channels and a kernel row of 5 weights over a block (see directKernels.gradRow).", name, mr))
	const nr = gradRowWidth
	V := isa.bytes
	dy, x, ox, oy, skip, t, ow := reg.RSI, reg.RBX, reg.RCX, reg.RDX, reg.R13, reg.RAX, reg.R14
	dstep := reg.RDI
	acc := func(i, j int) reg.VecPhysical { return isa.vec(i*nr + j) }
	rmr := gradRowMR(isa)
	dyv := func(h, i int) reg.VecPhysical { return isa.vec(rmr*nr + h*rmr + i) }
	xv := []reg.VecPhysical{isa.vec(rmr*nr + 2*rmr), isa.vec(rmr*nr + 2*rmr + 1)}

	c.CMPQ(paramAddr(c, "groups"), operand.U8(0))
	c.JLE(operand.LabelRef("done"))
	c.Label("group")
	gradSumsIn(c, isa, mr, nr, acc, t)
	c.Load(c.Param("offs"), t)
	c.MOVLQSX(operand.Mem{Base: t}, t)
	c.Load(c.Param("dy"), dy)
	c.Load(c.Param("dyStep"), dstep)
	c.Load(c.Param("x"), x)
	c.ADDQ(t, x)
	c.Load(c.Param("xSkip"), skip)
	c.Load(c.Param("ow"), ow)
	c.Load(c.Param("oh"), oy)
	pf := reg.R8
	c.Load(c.Param("pf"), pf)
	c.TESTQ(oy, oy)
	c.JLE(operand.LabelRef("store"))
	c.TESTQ(ow, ow)
	c.JLE(operand.LabelRef("store"))

	c.Label("row")
	c.MOVQ(ow, ox)
	c.CMPQ(ox, operand.U8(2))
	c.JL(operand.LabelRef("single"))
	c.Label("pair")
	prefetchAhead(c, x, pf)
	for h := 0; h < 2; h++ {
		for i := 0; i < mr; i++ {
			m := operand.Mem{Base: dy, Disp: i * V}
			if h == 1 {
				m.Index, m.Scale = dstep, 1
			}
			c.VMOVUPS(m, dyv(h, i))
		}
	}
	for q := 0; q <= nr; q++ {
		r := xv[q%2]
		c.VMOVUPS(operand.Mem{Base: x, Disp: q * V}, r)
		if q < nr {
			for i := 0; i < mr; i++ {
				c.VFMADD231PS(r, dyv(0, i), acc(i, q))
			}
		}
		if q >= 1 {
			for i := 0; i < mr; i++ {
				c.VFMADD231PS(r, dyv(1, i), acc(i, q-1))
			}
		}
	}
	c.ADDQ(operand.U32(2*V), x)
	c.LEAQ(operand.Mem{Base: dy, Index: dstep, Scale: 2}, dy)
	c.SUBQ(operand.U8(2), ox)
	c.CMPQ(ox, operand.U8(2))
	c.JGE(operand.LabelRef("pair"))
	c.Label("single")
	c.TESTQ(ox, ox)
	c.JZ(operand.LabelRef("rowEnd"))
	for i := 0; i < mr; i++ {
		c.VMOVUPS(operand.Mem{Base: dy, Disp: i * V}, dyv(0, i))
	}
	for q := 0; q < nr; q++ {
		r := xv[q%2]
		c.VMOVUPS(operand.Mem{Base: x, Disp: q * V}, r)
		for i := 0; i < mr; i++ {
			c.VFMADD231PS(r, dyv(0, i), acc(i, q))
		}
	}
	c.ADDQ(operand.U32(V), x)
	c.ADDQ(dstep, dy)
	c.Label("rowEnd")
	c.ADDQ(skip, x)
	c.ADDQ(paramAddr(c, "dySkip"), dy)
	c.DECQ(oy)
	c.JNZ(operand.LabelRef("row"))

	gradSumsOut(c, isa, mr, nr, acc, t)
}
