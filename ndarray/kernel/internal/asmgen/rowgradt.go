package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The weight gradient on flat rows with the output channels in the lanes
// (package kernel's rowconv_flat.go): the output gradient is transposed
// pixel-major, all output channels of a pixel side by side, so that a
// pixel's channels are whole aligned vectors and each input value a
// weight meets is broadcast, never a vector load across cache lines:
//
//	convRowsGradT*xMR  MR vectors of output channels and four weights:
//	              per output pixel, MR gradient vectors and four
//	              broadcasts of the input, 4·MR multiply-adds into sums
//	              that each hold one weight's gradient of as many output
//	              channels as the vector has lanes, summed over the
//	              pixels in order
var (
	rowGradTISA512 = directISA{suffix: "AVX512", bytes: 64, regs: 32, vec: zmm, gmr: 6, gnr: 4}
	rowGradTISA256 = directISA{suffix: "AVX2", bytes: 32, regs: 16, vec: ymm, gmr: 3, gnr: 4}
)

func buildRowGradT(c *build.Context) {
	for _, isa := range []directISA{rowGradTISA512, rowGradTISA256} {
		for mr := 1; mr <= isa.gmr; mr++ {
			convRowsGradT(c, isa, mr)
		}
	}
	prefetchRows(c)
}

// prefetchRows emits prefetchRowsT1: a PREFETCHT1 of every 64-byte line
// of rows runs of n bytes, stride bytes apart (the flat weight
// gradient's next band of output gradient, a short run in each of many
// channel planes, whose lines the transposition would otherwise wait
// for: too many streams, each too slow, for the hardware's prefetchers).
func prefetchRows(c *build.Context) {
	c.Function("prefetchRowsT1")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(p *float32, stride, rows, n int)")
	c.Doc("prefetchRowsT1 prefetches into the second-level cache the lines of rows runs of n bytes from p, stride bytes apart.")
	p, stride, rows, n, q, end := reg.RSI, reg.RDI, reg.RCX, reg.RDX, reg.RAX, reg.RBX
	c.Load(c.Param("p"), p)
	c.Load(c.Param("stride"), stride)
	c.Load(c.Param("rows"), rows)
	c.Load(c.Param("n"), n)
	c.TESTQ(rows, rows)
	c.JLE(operand.LabelRef("done"))
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("row")
	c.MOVQ(p, q)
	c.LEAQ(operand.Mem{Base: p, Index: n, Scale: 1}, end)
	c.Label("line")
	c.PREFETCHT1(operand.Mem{Base: q})
	c.ADDQ(operand.U8(64), q)
	c.CMPQ(q, end)
	c.JLT(operand.LabelRef("line"))
	// The run's last line, where it ends past a line the steps missed.
	c.PREFETCHT1(operand.Mem{Base: end, Disp: -1})
	c.ADDQ(stride, p)
	c.DECQ(rows)
	c.JNZ(operand.LabelRef("row"))
	c.Label("done")
	c.RET()
}

// convRowsGradT emits convRowsGradT{AVX512,AVX2}xMR:
//
//	acc[j][i] += Σ over rows r < nrows, pixels t < npix of
//	    x[offs[j] + r·xrow + 4t] · dy[(r·npix + t)·dyStep + i·V]
//
// for j < gnr (acc rows accRow bytes apart), i < mr (vectors of V bytes,
// adjacent), byte strides and offsets; xrow is 4·npix + xskip. Each sum
// runs over the rows and pixels in order, one multiply-add per pixel.
func convRowsGradT(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("convRowsGradT%sx%d", isa.suffix, mr)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int)")
	c.Doc(fmt.Sprintf("%s sums the weight gradient of %d vectors of output channels and %d weights over output pixels, the channels in the lanes (see rowKernels.gradT).", name, mr, isa.gnr))
	nr := isa.gnr
	dy, x, step, v, r, t := reg.RSI, reg.RBX, reg.RDI, reg.RCX, reg.RDX, reg.RAX
	offReg := []reg.Register{reg.R8, reg.R9, reg.R10, reg.R11}[:nr]
	acc := func(i, j int) reg.VecPhysical { return isa.vec(j*mr + i) }
	dyv := func(i int) reg.VecPhysical { return isa.vec(mr*nr + i) }
	bc := isa.vec(mr*nr + mr)

	c.Load(c.Param("offs"), t)
	for j, o := range offReg {
		c.MOVLQSX(operand.Mem{Base: t, Disp: 4 * j}, o)
	}
	c.Load(c.Param("acc"), t)
	for j := 0; j < nr; j++ {
		for i := 0; i < mr; i++ {
			c.VMOVUPS(operand.Mem{Base: t, Disp: i * isa.bytes}, acc(i, j))
		}
		if j < nr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.Load(c.Param("dy"), dy)
	c.Load(c.Param("x"), x)
	c.Load(c.Param("dyStep"), step)
	c.Load(c.Param("nrows"), r)
	c.TESTQ(r, r)
	c.JLE(operand.LabelRef("store"))
	c.CMPQ(paramAddr(c, "npix"), operand.U8(0))
	c.JLE(operand.LabelRef("store"))
	c.Label("row")
	c.Load(c.Param("npix"), v)
	c.Label("pix")
	for i := 0; i < mr; i++ {
		c.VMOVUPS(operand.Mem{Base: dy, Disp: i * isa.bytes}, dyv(i))
	}
	for j, o := range offReg {
		c.VBROADCASTSS(operand.Mem{Base: x, Index: o, Scale: 1}, bc)
		for i := 0; i < mr; i++ {
			c.VFMADD231PS(bc, dyv(i), acc(i, j))
		}
	}
	c.ADDQ(operand.U8(4), x)
	c.ADDQ(step, dy)
	c.DECQ(v)
	c.JNZ(operand.LabelRef("pix"))
	c.ADDQ(paramAddr(c, "xskip"), x)
	c.DECQ(r)
	c.JNZ(operand.LabelRef("row"))

	c.Label("store")
	c.Load(c.Param("acc"), t)
	for j := 0; j < nr; j++ {
		for i := 0; i < mr; i++ {
			c.VMOVUPS(acc(i, j), operand.Mem{Base: t, Disp: i * isa.bytes})
		}
		if j < nr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.VZEROUPPER()
	c.RET()
}
