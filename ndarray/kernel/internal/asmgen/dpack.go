package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// buildDirectPack emits the direct convolution's weight packing (see
// package kernel's directKernels.gatherRows): rows of h floats dstStep
// floats apart, each gathered from floats stride apart, the rows' first
// floats step apart.
//
//	gatherRowsAVX512  up to 16 floats a row, one VGATHERDPS and a masked
//	                  store each
//	gatherRowsAVX2    up to 8 floats a row, one VGATHERDPS and a
//	                  VMASKMOVPS store each
func buildDirectPack(c *build.Context) {
	lanes := c.StaticGlobal("gatherLanes")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 16; l++ {
		c.AddDatum(4*l, operand.U32(l))
	}
	gatherRows(c, lanes, true)
	gatherRows(c, lanes, false)
}

// gatherRows emits gatherRowsAVX512 (wide) or gatherRowsAVX2.
func gatherRows(c *build.Context, lanes operand.Mem, wide bool) {
	name := "gatherRowsAVX2"
	if wide {
		name = "gatherRowsAVX512"
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStep int, src *float32, stride, step, h, count int)")
	c.Doc(name + " writes count rows of h floats (h <= " + map[bool]string{true: "16", false: "8"}[wide] +
		") at dst[j·dstStep], row j's float i from src[j·step + i·stride] (see directKernels.gatherRows).")
	dst, src, stride, step, h, count := reg.RDI, reg.RSI, reg.R8, reg.R9, reg.RCX, reg.RDX
	rowBytes := reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStep"), rowBytes)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("stride"), stride)
	c.Load(c.Param("step"), step)
	c.Load(c.Param("h"), h)
	c.Load(c.Param("count"), count)
	c.TESTQ(count, count)
	c.JLE(operand.LabelRef("done"))
	c.SHLQ(operand.U8(2), step) // bytes
	c.SHLQ(operand.U8(2), rowBytes)
	if wide {
		// Z1: lane l's offset l·stride; K1: the lanes below h.
		c.VPBROADCASTD(stride.As32(), reg.Z1)
		c.VPMULLD(lanes, reg.Z1, reg.Z1)
		c.MOVL(operand.U32(0xffff), reg.R11L)
		c.BZHIL(h.As32(), reg.R11L, reg.R11L)
		c.KMOVW(reg.R11L, reg.K1)
		c.Label("row")
		c.KMOVW(reg.K1, reg.K2)
		c.VGATHERDPS(operand.Mem{Base: src, Index: reg.Z1, Scale: 4}, reg.K2, reg.Z0)
		c.VMOVUPS(reg.Z0, reg.K1, operand.Mem{Base: dst})
	} else {
		// Y1: lane l's offset l·stride; Y2: the lanes below h (all ones).
		c.MOVQ(stride, reg.X1)
		c.VPBROADCASTD(reg.X1, reg.Y1)
		c.VPMULLD(lanes, reg.Y1, reg.Y1)
		c.MOVQ(h, reg.X2)
		c.VPBROADCASTD(reg.X2, reg.Y2)
		c.VPCMPGTD(lanes, reg.Y2, reg.Y2)
		c.Label("row")
		c.VMOVDQA(reg.Y2, reg.Y3) // the gather clears its mask
		c.VGATHERDPS(reg.Y3, operand.Mem{Base: src, Index: reg.Y1, Scale: 4}, reg.Y0)
		c.VMASKMOVPS(reg.Y0, reg.Y2, operand.Mem{Base: dst})
	}
	c.ADDQ(rowBytes, dst)
	c.ADDQ(step, src)
	c.DECQ(count)
	c.JNZ(operand.LabelRef("row"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}
