package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// gradWinMR is the most output channels of a directGradWin kernel: its
// accumulators (MR × 9), the input window (3 rows × 3 columns) and MR
// gradient vectors fill the 32 registers.
const gradWinMR = 2

// buildDirectGradWin emits the weight-gradient kernels of the direct
// convolution for 3×3 kernels (see package kernel's directKernels.gradWin):
//
//	directGradWinAVX512xMR   directGradSeqAVX512xMR for the nine weights of
//	                         one input channel of a 3×3 kernel: a window of
//	                         the input's three rows by three columns slides
//	                         along each output row in registers, so that a
//	                         pixel loads its new column (three vectors) and
//	                         its MR gradient vectors for 9·MR multiply-adds
//
// AVX-512 only: AVX2's sixteen registers do not hold the window beside
// the sums of one channel.
func buildDirectGradWin(c *build.Context) {
	for mr := 1; mr <= gradWinMR; mr++ {
		directGradWin(c, direct512, mr)
	}
}

// directGradWin emits directGradWinAVX512xMR:
//
//	acc[i][3·ky+kx] (+)= Σ over oh×ow pixels p of dy[p][i] · x[p + offs[0] + ky·S + kx]
//
// for i < mr and ky, kx < 3: x's vectors counted from offs[0] (bytes), S
// the input's row (ow vectors and xSkip bytes), the layouts as
// directGradSeq's. Column q of the window (three vectors, one a kernel
// row) lives in register slot q mod 3 from the pixel q−2 that loads it to
// the pixel q that last reads it, so each output row loads its first two
// columns, then one column a pixel; the pixels go three at a time, each
// a slot on, so that the slots' registers stay fixed. Every sum runs
// over the pixels in order, as in directGradSeq. The call repeats for
// groups input channels, each channel's offsets (nine, of which the
// first is read) and sums following the last's. Each pixel prefetches
// the line pf bytes past its first input vector (see prefetchAhead).
func directGradWin(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("directGradWin%sx%d", isa.suffix, mr)
	gradFunction(c, name, fmt.Sprintf("%s sums the weight gradient of %d output channels and the nine weights of an input channel of a 3×3 kernel over a block (see directKernels.gradWin).", name, mr))
	const nr = 9
	V := isa.bytes
	dy, x, ox, oy, skip, t, ow := reg.RSI, reg.RBX, reg.RCX, reg.RDX, reg.R13, reg.RAX, reg.R14
	dstep, pf, S := reg.RDI, reg.R8, reg.R9
	acc := func(i, j int) reg.VecPhysical { return isa.vec(i*nr + j) }
	win := func(ky, slot int) reg.VecPhysical { return isa.vec(gradWinMR*nr + 3*ky + slot) }
	dyv := func(i int) reg.VecPhysical { return isa.vec(gradWinMR*nr + 9 + i) }
	// xAt addresses kernel row ky of the column u vectors past x.
	xAt := func(ky, u int) operand.Mem {
		m := operand.Mem{Base: x, Disp: u * V}
		if ky > 0 {
			m.Index, m.Scale = S, uint8(ky)
		}
		return m
	}
	// column loads window column q (u vectors past x) into its slot.
	column := func(q, u int) {
		for ky := range 3 {
			c.VMOVUPS(xAt(ky, u), win(ky, q%3))
		}
	}
	// pixel emits the pixel u vectors past x (and u·dyStep past dy),
	// whose window starts in slot s: its new column first, then its
	// gradient vectors and the products, column by column.
	pixel := func(s, u int) {
		c.PREFETCHT0(operand.Mem{Base: x, Index: pf, Scale: 1, Disp: u * V})
		column(s+2, u+2)
		for i := range mr {
			m := operand.Mem{Base: dy, Disp: i * V}
			if u > 0 {
				m.Index, m.Scale = dstep, uint8(u)
			}
			c.VMOVUPS(m, dyv(i))
		}
		for kx := range 3 {
			for ky := range 3 {
				for i := range mr {
					c.VFMADD231PS(win(ky, (s+kx)%3), dyv(i), acc(i, 3*ky+kx))
				}
			}
		}
	}

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
	c.Load(c.Param("pf"), pf)
	// S: a row of the input, ow vectors and xSkip bytes.
	c.MOVQ(ow, S)
	c.SHLQ(operand.U8(log2(V)), S)
	c.ADDQ(skip, S)
	c.TESTQ(oy, oy)
	c.JLE(operand.LabelRef("store"))
	c.TESTQ(ow, ow)
	c.JLE(operand.LabelRef("store"))

	c.Label("row")
	c.MOVQ(ow, ox)
	column(0, 0)
	column(1, 1)
	c.CMPQ(ox, operand.U8(3))
	c.JL(operand.LabelRef("tail"))
	c.Label("triple")
	for u := range 3 {
		pixel(u, u)
	}
	c.ADDQ(operand.U32(3*V), x)
	c.LEAQ(operand.Mem{Base: dy, Index: dstep, Scale: 2}, dy)
	c.ADDQ(dstep, dy)
	c.SUBQ(operand.U8(3), ox)
	c.CMPQ(ox, operand.U8(3))
	c.JGE(operand.LabelRef("triple"))
	c.Label("tail")
	// One or two pixels left, their slots those of a triple's first.
	for u := range 2 {
		c.TESTQ(ox, ox)
		c.JZ(operand.LabelRef("rowEnd"))
		pixel(u, 0)
		c.ADDQ(operand.U32(V), x)
		c.ADDQ(dstep, dy)
		c.DECQ(ox)
	}
	c.Label("rowEnd")
	c.ADDQ(skip, x)
	c.ADDQ(paramAddr(c, "dySkip"), dy)
	c.DECQ(oy)
	c.JNZ(operand.LabelRef("row"))

	gradSumsOut(c, isa, mr, nr, acc, t)
}
