package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// buildDirectStream emits the direct convolution's streaming stores of
// interleaved vectors (see package kernel's directKernels.interleaveStream):
//
//	interleaveStreamAVX512  interleaveAVX512 with non-temporal stores (each
//	                        pixel vector is one whole aligned cache line)
//	storeFenceAVX512        SFENCE: the stores above are ordered before
//	                        any that follow
//
// AVX-512 only: AVX2's vectors fill half a line, and the two halves of a
// line come from two calls (two channels), too far apart for the
// processor's write-combining buffers to join them.
func buildDirectStream(c *build.Context) {
	interleaveStream512(c)
	c.Function("storeFenceAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func()")
	c.Doc("storeFenceAVX512 orders the non-temporal stores before it (SFENCE) before the stores after it.")
	c.SFENCE()
	c.RET()
}

// interleaveStream512 emits interleaveStreamAVX512: interleave512's
// loads and transposition, each pixel's vector stored by VMOVNTPS
// (dst and dstStep multiples of 64 bytes), without a fence: a pass of
// many calls ends with one (storeFenceAVX512).
func interleaveStream512(c *build.Context) {
	c.Function("interleaveStreamAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStep int, src *float32, srcStride, w, n int)")
	c.Doc("interleaveStreamAVX512 is interleaveAVX512 with non-temporal stores of the aligned pixel vectors, unfenced (see directKernels.interleaveStream).")
	dst, dstStep, src, srcStride, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStep"), dstStep)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStride"), srcStride)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(16), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	c.MOVL(operand.U32(0xffff), reg.R12L)
	c.BZHIL(reg.R10L, reg.R12L, reg.R12L)
	c.KMOVW(reg.R12L, reg.K1)
	c.MOVQ(src, p)
	loadRows(c, direct512, 16, n, p, srcStride, "", func(r int, m operand.Mem) {
		c.VMOVUPS_Z(m, reg.K1, zmm(r))
	})
	transpose16(c)
	for j := 0; j < 16; j++ {
		if j > 0 {
			c.CMPQ(width, operand.U8(j))
			c.JLE(operand.LabelRef("stored"))
		}
		c.VMOVNTPS(zmm(j), operand.Mem{Base: dst})
		c.ADDQ(dstStep, dst)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(64), src)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}
