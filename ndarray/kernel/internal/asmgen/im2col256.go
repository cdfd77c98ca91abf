package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// buildIm2col256 emits im2colChannelAVX2, im2colChannelAVX512 for AVX2.
func buildIm2col256(c *build.Context) {
	iota := c.StaticGlobal("im2col256Lanes")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(l))
	}
	im2colChannel256(c, iota)
}

// im2colChannel256 emits im2colChannelAVX2, the stride-1 im2col of one
// channel (see im2colChannel512): for every kernel offset (ki, kj) the
// outH×outW row of the column matrix, ldc floats after the previous one,
// holds the image values at (oy+ki·dilH−padH, ox+kj·dilW−padW), zero in
// the padding, written an 8-lane vector of output columns at a time for
// all output rows: rows above and below the image are zeros, the others
// one VMASKMOVPS load each, whose lanes outside the image read nothing
// and give zero. The lane masks, made by comparing broadcast bounds with
// the lane numbers, depend only on kj and the vector; a vector whose
// lanes all lie inside the row is stored by plain stores, the row's last
// partial vector by VMASKMOVPS.
func im2colChannel256(c *build.Context, lanes operand.Mem) {
	c.Function("im2colChannelAVX2")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(col, img *float32, ldc, height, width, outH, outW, kh, kw, padH, padW, dilH, dilW int)")
	c.Doc("im2colChannelAVX2 writes the kh·kw rows (ldc floats apart) of the stride-1 column matrix of one height×width channel.")
	ki, kj, v := reg.R8, reg.R9, reg.R10 // loop counters (v in floats)
	oy, oy0, oy1 := reg.R11, reg.R12, reg.R13
	src, dst, t, u := reg.RSI, reg.RDI, reg.RAX, reg.RBX
	outW, width := reg.RCX, reg.RDX
	val, zero, store, load, iota, tmp := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5
	arg := func(name string) operand.Mem { return paramAddr(c, name) }
	c.Load(c.Param("outW"), outW)
	c.Load(c.Param("width"), width)
	c.VXORPS(zero, zero, zero)
	c.VMOVDQU(lanes, iota)
	c.XORQ(ki, ki)
	c.Label("ki")
	im2colBounds(c, im2colRegs{ki: ki, oy0: oy0, oy1: oy1, t: t, u: u})
	c.XORQ(kj, kj)
	c.Label("kj")
	c.XORQ(v, v)
	c.Label("v")
	// The store mask: the lanes below outW − v.
	c.MOVQ(outW, t)
	c.SUBQ(v, t)
	c.VMOVQ(t, reg.X5)
	c.VPBROADCASTD(reg.X5, store)
	c.VPCMPGTD(iota, store, store)
	// The load mask: output columns ox with 0 <= ox+off < width, off =
	// kj·dilW − padW, that is [−off, min(outW, width − off)), relative
	// to v: the lanes below the end and not below the start.
	c.MOVQ(kj, t)
	c.IMULQ(arg("dilW"), t)
	c.SUBQ(arg("padW"), t) // t = off
	c.MOVQ(width, u)
	c.SUBQ(t, u) // u = width − off
	c.CMPQ(u, outW)
	c.CMOVQGT(outW, u) // u = end
	c.NEGQ(t)          // t = −off
	c.SUBQ(v, u)
	c.SUBQ(v, t)
	c.VMOVQ(u, reg.X5)
	c.VPBROADCASTD(reg.X5, load)
	c.VPCMPGTD(iota, load, load)
	c.VMOVQ(t, reg.X5)
	c.VPBROADCASTD(reg.X5, tmp)
	c.VPCMPGTD(iota, tmp, tmp)
	c.VPANDN(load, tmp, load) // load &^ tmp
	im2colPointers(c, im2colRegs{ki: ki, kj: kj, v: v, oy0: oy0, src: src, dst: dst, t: t, u: u, outW: outW, width: width})
	c.XORQ(oy, oy)
	// A whole vector when v + 8 <= outW (oy0 is reloaded below: use
	// the flags of a comparison made here).
	c.LEAQ(operand.Mem{Base: v, Disp: 8}, oy)
	c.CMPQ(oy, outW)
	c.MOVQ(operand.U32(0), oy)
	c.JG(operand.LabelRef("partial"))
	r := im2colRegs{ki: ki, kj: kj, v: v, oy: oy, oy0: oy0, oy1: oy1, src: src, dst: dst, t: t, u: u, outW: outW}
	rows := func(tag string, put func(y reg.VecPhysical)) {
		im2colRows(c, r, tag, func() { put(zero) }, func() {
			c.VMASKMOVPS(operand.Mem{Base: src}, load, val)
			put(val)
		})
	}
	rows("Full", func(y reg.VecPhysical) { c.VMOVUPS(y, operand.Mem{Base: dst}) })
	c.Label("partial")
	rows("Part", func(y reg.VecPhysical) { c.VMASKMOVPS(y, store, operand.Mem{Base: dst}) })
	im2colNext(c, r, 8)
}

// im2colRegs names the general registers the stride-1 im2col kernels
// (im2colChannel512, im2colChannel256) keep their loop state in.
type im2colRegs struct {
	ki, kj, v   reg.Register // kernel row, kernel column, output column (floats)
	oy          reg.Register // output row
	oy0, oy1    reg.Register // the output rows whose input row lies in the image
	src, dst    reg.Register
	t, u        reg.Register // scratch
	outW, width reg.Register
}

// im2colBounds emits oy0 = clamp(padH − ki·dilH, 0, outH) and
// oy1 = clamp(height + padH − ki·dilH, oy0, outH): the output rows of
// kernel row ki that read a row of the image.
func im2colBounds(c *build.Context, r im2colRegs) {
	arg := func(name string) operand.Mem { return paramAddr(c, name) }
	c.MOVQ(r.ki, r.t)
	c.IMULQ(arg("dilH"), r.t)
	c.MOVQ(arg("padH"), r.oy0)
	c.SUBQ(r.t, r.oy0)
	c.MOVQ(arg("height"), r.oy1)
	c.ADDQ(r.oy0, r.oy1)
	c.XORQ(r.u, r.u)
	c.CMPQ(r.oy0, r.u)
	c.CMOVQLT(r.u, r.oy0)
	c.MOVQ(arg("outH"), r.u)
	c.CMPQ(r.oy0, r.u)
	c.CMOVQGT(r.u, r.oy0)
	c.CMPQ(r.oy1, r.u)
	c.CMOVQGT(r.u, r.oy1)
	c.CMPQ(r.oy1, r.oy0)
	c.CMOVQLT(r.oy0, r.oy1)
}

// im2colPointers emits dst = col + 4·((ki·kw + kj)·ldc + v), the first
// output row of the vector at v of kernel offset (ki, kj), and
// src = img + 4·((oy0 − padH + ki·dilH)·width + v + kj·dilW − padW), the
// input it reads in output row oy0; then u = 4·outW and t = 4·width, the
// bytes from row to row of each.
func im2colPointers(c *build.Context, r im2colRegs) {
	arg := func(name string) operand.Mem { return paramAddr(c, name) }
	c.MOVQ(r.ki, r.t)
	c.IMULQ(arg("kw"), r.t)
	c.ADDQ(r.kj, r.t)
	c.IMULQ(arg("ldc"), r.t)
	c.ADDQ(r.v, r.t)
	c.MOVQ(arg("col"), r.dst)
	c.LEAQ(operand.Mem{Base: r.dst, Index: r.t, Scale: 4}, r.dst)
	c.MOVQ(r.ki, r.t)
	c.IMULQ(arg("dilH"), r.t)
	c.SUBQ(arg("padH"), r.t)
	c.ADDQ(r.oy0, r.t)
	c.IMULQ(r.width, r.t)
	c.ADDQ(r.v, r.t)
	c.MOVQ(r.kj, r.u)
	c.IMULQ(arg("dilW"), r.u)
	c.SUBQ(arg("padW"), r.u)
	c.ADDQ(r.u, r.t)
	c.MOVQ(arg("img"), r.src)
	c.LEAQ(operand.Mem{Base: r.src, Index: r.t, Scale: 4}, r.src)
	c.MOVQ(r.outW, r.u)
	c.SHLQ(operand.U8(2), r.u)
	c.MOVQ(r.width, r.t)
	c.SHLQ(operand.U8(2), r.t)
}

// im2colRows emits the loop over the output rows of the vector at v of
// kernel offset (ki, kj): rows above oy0 and from oy1 on get zero(),
// the others copy() of the image row at src; dst steps u bytes a row,
// src t bytes. Its labels end in tag; it ends by jumping to vnext.
func im2colRows(c *build.Context, r im2colRegs, tag string, zero, copy func()) {
	c.Label("above" + tag)
	c.CMPQ(r.oy, r.oy0)
	c.JGE(operand.LabelRef("inside" + tag))
	zero()
	c.ADDQ(r.u, r.dst)
	c.INCQ(r.oy)
	c.JMP(operand.LabelRef("above" + tag))
	c.Label("inside" + tag)
	c.CMPQ(r.oy, r.oy1)
	c.JGE(operand.LabelRef("below" + tag))
	copy()
	c.ADDQ(r.u, r.dst)
	c.ADDQ(r.t, r.src)
	c.INCQ(r.oy)
	c.JMP(operand.LabelRef("inside" + tag))
	c.Label("below" + tag)
	c.CMPQ(r.oy, paramAddr(c, "outH"))
	c.JGE(operand.LabelRef("vnext"))
	zero()
	c.ADDQ(r.u, r.dst)
	c.INCQ(r.oy)
	c.JMP(operand.LabelRef("below" + tag))
}

// im2colNext emits label vnext, the step to the next vector of lanes
// output columns, kernel column and kernel row, and the return.
func im2colNext(c *build.Context, r im2colRegs, lanes int) {
	c.Label("vnext")
	c.ADDQ(operand.U8(lanes), r.v)
	c.CMPQ(r.v, r.outW)
	c.JL(operand.LabelRef("v"))
	c.INCQ(r.kj)
	c.CMPQ(r.kj, paramAddr(c, "kw"))
	c.JL(operand.LabelRef("kj"))
	c.INCQ(r.ki)
	c.CMPQ(r.ki, paramAddr(c, "kh"))
	c.JL(operand.LabelRef("ki"))
	c.VZEROUPPER()
	c.RET()
}
