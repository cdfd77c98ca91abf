package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
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
	interleaveVectors512(c, "interleaveStreamAVX512",
		"interleaveStreamAVX512 is interleaveAVX512 with non-temporal stores of the aligned pixel vectors, unfenced (see directKernels.interleaveStream).",
		true)
}
