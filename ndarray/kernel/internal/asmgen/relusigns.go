package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The rectifier kernels that keep its signs: the forward pass writes,
// beside each output, one bit saying whether it is positive (bit i%8 of
// byte i/8 of the signs), and the gradient reads those bits instead of
// the 32-bit outputs (see kernel.ReluSigns and kernel.ReluGradSigns).
// The arithmetic is reluAVX512's and reluGradAVX512's.
func buildReluSigns(c *build.Context) {
	bitTab := c.StaticGlobal("reluSignsBits")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(1<<l))
	}
	reluSigns512(c)
	reluGradSigns512(c)
	reluSigns256(c)
	reluGradSigns256(c, bitTab)
}

// reluSigns512 emits reluSignsAVX512: dst[i] = x[i] if x[i] > 0, else
// slope·x[i] + 0, and bit i of signs = dst[i] > 0, 16 values (two bytes
// of signs) a step, the last vector under opmask K1 (its missing lanes
// read as +0, whose bits are clear).
func reluSigns512(c *build.Context) {
	c.Function("reluSignsAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, x []float32, slope float32, signs *uint64)")
	c.Doc("reluSignsAVX512 sets dst[i] = x[i] if x[i] > 0, else slope*x[i], and bit i of signs to dst[i] > 0, for i < len(x).")
	n, x, d, s := reg.RCX, reg.RSI, reg.RDI, reg.RDX
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dst").Base(), d)
	c.Load(c.Param("signs"), s)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Z31)
	c.VPXORD(reg.Z30, reg.Z30, reg.Z30)
	body := func(k reg.Register) {
		load512(c, operand.Mem{Base: x}, k, reg.Z0)
		c.VCMPPS(operand.U8(cmpGTOQ), reg.Z30, reg.Z0, reg.K2)
		c.VMOVAPS(reg.Z30, reg.Z1)
		c.VFMADD231PS(reg.Z31, reg.Z0, reg.Z1) // slope·x + 0
		c.VMOVAPS(reg.Z0, reg.K2, reg.Z1)
		c.VCMPPS(operand.U8(cmpGTOQ), reg.Z30, reg.Z1, reg.K3)
		store512(c, reg.Z1, k, operand.Mem{Base: d})
		c.KMOVW(reg.K3, operand.Mem{Base: s})
	}
	reluLoop512(c, n, []reg.Register{x, d}, s, body)
}

// reluGradSigns512 emits reluGradSignsAVX512: dx[i] = dy[i] if bit i of
// signs is set, else slope·dy[i], 16 values a step, the last vector under
// opmask K1.
func reluGradSigns512(c *build.Context) {
	c.Function("reluGradSignsAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dx, dy []float32, signs *uint64, slope float32)")
	c.Doc("reluGradSignsAVX512 sets dx[i] = dy[i] if bit i of signs is set, else slope*dy[i], for i < len(dy).")
	n, dy, dx, s := reg.RCX, reg.RSI, reg.RDI, reg.RDX
	c.Load(c.Param("dy").Len(), n)
	c.Load(c.Param("dy").Base(), dy)
	c.Load(c.Param("dx").Base(), dx)
	c.Load(c.Param("signs"), s)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Z31)
	body := func(k reg.Register) {
		c.KMOVW(operand.Mem{Base: s}, reg.K2)
		load512(c, operand.Mem{Base: dy}, k, reg.Z2)
		c.VMULPS(reg.Z31, reg.Z2, reg.Z1)
		c.VMOVAPS(reg.Z2, reg.K2, reg.Z1)
		store512(c, reg.Z1, k, operand.Mem{Base: dx})
	}
	reluLoop512(c, n, []reg.Register{dy, dx}, s, body)
}

// reluSigns256 emits reluSignsAVX2, reluSignsAVX512 for len(x) rounded
// down to a multiple of 8, a byte of signs a step (VMOVMSKPS).
func reluSigns256(c *build.Context) {
	c.Function("reluSignsAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, x []float32, slope float32, signs *uint64)")
	c.Doc("reluSignsAVX2 sets dst[i] = x[i] if x[i] > 0, else slope*x[i], and bit i of signs to dst[i] > 0, for i < len(x) rounded down to a multiple of 8.")
	n, x, d, s := reg.RCX, reg.RSI, reg.RDI, reg.RDX
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dst").Base(), d)
	c.Load(c.Param("signs"), s)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Y15)
	c.VXORPS(reg.Y14, reg.Y14, reg.Y14)
	c.SHRQ(operand.U8(3), n)
	c.JZ(operand.LabelRef("done"))
	c.Label("loop")
	c.VMOVUPS(operand.Mem{Base: x}, reg.Y0)
	c.VCMPPS(operand.U8(cmpGTOQ), reg.Y14, reg.Y0, reg.Y2)
	c.VXORPS(reg.Y1, reg.Y1, reg.Y1)
	c.VFMADD231PS(reg.Y15, reg.Y0, reg.Y1) // slope·x + 0
	c.VBLENDVPS(reg.Y2, reg.Y0, reg.Y1, reg.Y1)
	c.VCMPPS(operand.U8(cmpGTOQ), reg.Y14, reg.Y1, reg.Y3)
	c.VMOVUPS(reg.Y1, operand.Mem{Base: d})
	c.VMOVMSKPS(reg.Y3, reg.EAX)
	c.MOVB(reg.AL, operand.Mem{Base: s})
	c.ADDQ(operand.U8(32), x)
	c.ADDQ(operand.U8(32), d)
	c.INCQ(s)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// reluGradSigns256 emits reluGradSignsAVX2 for len(dy) rounded down to a
// multiple of 8: a byte of signs is broadcast, its lanes' bits picked by
// the table of 1 << lane, and the lanes whose bit is clear take
// slope·dy.
func reluGradSigns256(c *build.Context, bitTab operand.Mem) {
	c.Function("reluGradSignsAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dx, dy []float32, signs *uint64, slope float32)")
	c.Doc("reluGradSignsAVX2 sets dx[i] = dy[i] if bit i of signs is set, else slope*dy[i], for i < len(dy) rounded down to a multiple of 8.")
	n, dy, dx, s := reg.RCX, reg.RSI, reg.RDI, reg.RDX
	c.Load(c.Param("dy").Len(), n)
	c.Load(c.Param("dy").Base(), dy)
	c.Load(c.Param("dx").Base(), dx)
	c.Load(c.Param("signs"), s)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Y15)
	c.VPXOR(reg.Y14, reg.Y14, reg.Y14)
	c.VMOVDQU(bitTab, reg.Y13)
	c.SHRQ(operand.U8(3), n)
	c.JZ(operand.LabelRef("done"))
	c.Label("loop")
	c.MOVBLZX(operand.Mem{Base: s}, reg.EAX)
	c.VMOVUPS(operand.Mem{Base: dy}, reg.Y0)
	c.VMOVD(reg.EAX, reg.X2)
	c.VPBROADCASTD(reg.X2, reg.Y2)
	c.VPAND(reg.Y13, reg.Y2, reg.Y2)
	c.VPCMPEQD(reg.Y14, reg.Y2, reg.Y2) // the lanes whose bit is clear
	c.VMULPS(reg.Y15, reg.Y0, reg.Y1)
	c.VBLENDVPS(reg.Y2, reg.Y1, reg.Y0, reg.Y0)
	c.VMOVUPS(reg.Y0, operand.Mem{Base: dx})
	c.ADDQ(operand.U8(32), dy)
	c.ADDQ(operand.U8(32), dx)
	c.INCQ(s)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}
