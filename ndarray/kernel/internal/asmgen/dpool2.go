package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The kernels of the pooling plans of package kernel's directpool2.go:
// pooling of any window, MAX or AVE, on the direct convolution's
// interleaved blocks, with a rectifier before it. Each vector holds one
// pixel of one channel of every image of a block.
//
//	dbiasRelu*      a bias and Caffe's ReLU on n vectors, the lanes that
//	                come out positive kept as bits
//	dreluGradBits*  the ReLU's gradient from those bits
//	dpoolAve*       n window averages (sums from zero in row-major order)
//	dunpoolAdd*     the gradients of n max-pooling windows added to the
//	                elements their indexes name (overlapping windows)
//	dspreadAve*     the gradients of n averaging windows, divided by the
//	                window's size, added along a row of vectors
//	dputRows*       a row of vectors stored to, or added to, rows

func buildDirectPool2(c *build.Context) {
	bitTab := c.StaticGlobal("dpool2Bits")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(1<<l))
	}
	for _, isa := range []directISA{direct512, direct256} {
		dbiasRelu(c, isa)
		dreluGradBits(c, isa, bitTab)
		dpoolAve(c, isa)
		dunpoolAdd(c, isa)
		dspreadAve(c, isa)
		dputRows(c, isa)
	}
}

// dbiasRelu emits dbiasRelu{AVX512,AVX2}: for o < n, with v the vector at
// dst + o·pixStep plus bias,
//
//	v = v where v > 0 (ordered), else v·slope + 0
//	bit l of the int32 at bits + o·bitsStep = lane l of v > 0
func dbiasRelu(c *build.Context, isa directISA) {
	c.Function("dbiasRelu" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, pixStep, n int, bits *int32, bitsStep int, bias, slope float32)")
	c.Doc("dbiasRelu" + isa.suffix + " adds a bias to n interleaved vectors and rectifies them, keeping the positive lanes as bits (see directKernels.biasRelu).")
	dst, pixStep, n, bits, bitsStep := reg.RDI, reg.R8, reg.RCX, reg.RSI, reg.R9
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("pixStep"), pixStep)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("bits"), bits)
	c.Load(c.Param("bitsStep"), bitsStep)
	v, t, cmp, bias, slope, zeros := isa.vec(0), isa.vec(1), isa.vec(2), isa.vec(3), isa.vec(4), isa.vec(5)
	c.VBROADCASTSS(paramAddr(c, "bias"), bias)
	c.VBROADCASTSS(paramAddr(c, "slope"), slope)
	zero(c, isa, zeros)
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("loop")
	c.VADDPS(operand.Mem{Base: dst}, bias, v)
	c.VMULPS(slope, v, t)
	c.VADDPS(zeros, t, t)
	if isa.bytes == 64 {
		c.VCMPPS(operand.U8(0x1e), zeros, v, reg.K1) // K1 = v > 0, ordered
		c.VMOVAPS(v, reg.K1, t)
		c.VCMPPS(operand.U8(0x1e), zeros, t, reg.K2)
		c.VMOVUPS(t, operand.Mem{Base: dst})
		c.KMOVW(reg.K2, reg.EAX)
	} else {
		c.VCMPPS(operand.U8(0x1e), zeros, v, cmp)
		c.VBLENDVPS(cmp, v, t, t)
		c.VCMPPS(operand.U8(0x1e), zeros, t, cmp)
		c.VMOVUPS(t, operand.Mem{Base: dst})
		c.VMOVMSKPS(cmp, reg.EAX)
	}
	c.MOVL(reg.EAX, operand.Mem{Base: bits})
	c.ADDQ(pixStep, dst)
	c.ADDQ(bitsStep, bits)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dreluGradBits emits dreluGradBits{AVX512,AVX2}: for o < n, the lanes of
// the vector at dst + o·pixStep whose bit in the int32 at bits +
// o·bitsStep is clear are multiplied by slope.
func dreluGradBits(c *build.Context, isa directISA, bitTab operand.Mem) {
	c.Function("dreluGradBits" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, pixStep, n int, bits *int32, bitsStep int, slope float32)")
	c.Doc("dreluGradBits" + isa.suffix + " is the rectifier's gradient on n interleaved vectors from dbiasRelu's bits (see directKernels.reluGradBits).")
	dst, pixStep, n, bits, bitsStep := reg.RDI, reg.R8, reg.RCX, reg.RSI, reg.R9
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("pixStep"), pixStep)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("bits"), bits)
	c.Load(c.Param("bitsStep"), bitsStep)
	v, t, m, slope, zeros, tab := isa.vec(0), isa.vec(1), isa.vec(2), isa.vec(3), isa.vec(4), isa.vec(5)
	c.VBROADCASTSS(paramAddr(c, "slope"), slope)
	if isa.bytes == 32 {
		zero(c, isa, zeros)
		c.VMOVDQU(bitTab, tab)
	}
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("loop")
	c.MOVL(operand.Mem{Base: bits}, reg.EAX)
	c.VMOVUPS(operand.Mem{Base: dst}, v)
	if isa.bytes == 64 {
		c.KMOVW(reg.EAX, reg.K1)
		c.KNOTW(reg.K1, reg.K1)
		c.VMULPS(slope, v, reg.K1, v)
	} else {
		c.VMOVD(reg.EAX, m.AsX())
		c.VPBROADCASTD(m.AsX(), m)
		c.VPAND(tab, m, m)
		c.VPCMPEQD(zeros, m, m) // the lanes whose bit is clear
		c.VMULPS(slope, v, t)
		c.VBLENDVPS(m, t, v, v)
	}
	c.VMOVUPS(v, operand.Mem{Base: dst})
	c.ADDQ(pixStep, dst)
	c.ADDQ(bitsStep, bits)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dpoolAve emits dpoolAve{AVX512,AVX2}: for o < n,
//
//	s = 0
//	for i < kh, j < kw: s += (vector at src + o·sw·pixStep + i·rowStep + j·pixStep) + bias
//	vector at dst + o·dstStep = s / div
func dpoolAve(c *build.Context, isa directISA) {
	c.Function("dpoolAve" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, bias, div float32)")
	c.Doc("dpoolAve" + isa.suffix + " averages n windows of interleaved pixel vectors (see directKernels.avePool).")
	dst, src, pixStep, rowStep, n := reg.RDI, reg.RBX, reg.R10, reg.R11, reg.RCX
	outStride, rowPtr, colPtr, i, j := reg.RAX, reg.R12, reg.R13, reg.RDX, reg.R9
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("pixStep"), pixStep)
	c.Load(c.Param("rowStep"), rowStep)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("sw"), outStride)
	c.IMULQ(pixStep, outStride)
	v, sum, bias, div := isa.vec(0), isa.vec(1), isa.vec(2), isa.vec(3)
	c.VBROADCASTSS(paramAddr(c, "bias"), bias)
	c.VBROADCASTSS(paramAddr(c, "div"), div)
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("output")
	zero(c, isa, sum)
	c.MOVQ(src, rowPtr)
	c.Load(c.Param("kh"), i)
	c.Label("row")
	c.MOVQ(rowPtr, colPtr)
	c.Load(c.Param("kw"), j)
	c.Label("col")
	c.VADDPS(operand.Mem{Base: colPtr}, bias, v)
	c.VADDPS(v, sum, sum)
	c.ADDQ(pixStep, colPtr)
	c.DECQ(j)
	c.JNZ(operand.LabelRef("col"))
	c.ADDQ(rowStep, rowPtr)
	c.DECQ(i)
	c.JNZ(operand.LabelRef("row"))
	c.VDIVPS(div, sum, sum)
	c.VMOVUPS(sum, operand.Mem{Base: dst})
	c.ADDQ(paramAddr(c, "dstStep"), dst)
	c.ADDQ(outStride, src)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("output"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dunpoolAdd emits dunpoolAdd{AVX512,AVX2}: for o < n, with g the vector
// at grad + o·gradStep and m the index vector at arg + o·argStep,
//
//	for i < kh, j < kw: the lanes of the vector at dst + o·sw·pixStep + i·rowStep + j·pixStep
//	                    where m = base + o·sw + i·ld + j get g added
func dunpoolAdd(c *build.Context, isa directISA) {
	c.Function("dunpoolAdd" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32)")
	c.Doc("dunpoolAdd" + isa.suffix + " adds the gradients of n overlapping max-pooling windows of interleaved pixel vectors to their maxima (see directKernels.unpoolAdd).")
	dst, arg, grad, pixStep, rowStep, n := reg.RDI, reg.RSI, reg.RBX, reg.R10, reg.R11, reg.RCX
	idx0, outStride, rowPtr, colPtr, rowIdx, colIdx, i, j := reg.RAX, reg.R14, reg.R12, reg.R13, reg.RDX, reg.R8, reg.R15, reg.R9
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("arg"), arg)
	c.Load(c.Param("grad"), grad)
	c.Load(c.Param("pixStep"), pixStep)
	c.Load(c.Param("rowStep"), rowStep)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("sw"), outStride)
	c.IMULQ(pixStep, outStride)
	c.MOVL(paramAddr(c, "base"), idx0.As32())
	g, m, at, d, t := isa.vec(0), isa.vec(1), isa.vec(2), isa.vec(3), isa.vec(4)
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("output")
	c.VMOVUPS(operand.Mem{Base: grad}, g)
	c.VMOVUPS(operand.Mem{Base: arg}, m)
	c.MOVQ(dst, rowPtr)
	c.MOVL(idx0.As32(), rowIdx.As32())
	c.Load(c.Param("kh"), i)
	c.Label("row")
	c.MOVQ(rowPtr, colPtr)
	c.MOVL(rowIdx.As32(), colIdx.As32())
	c.Load(c.Param("kw"), j)
	c.Label("col")
	c.VMOVUPS(operand.Mem{Base: colPtr}, d)
	if isa.bytes == 64 {
		c.VPBROADCASTD(colIdx.As32(), at)
		c.VPCMPEQD(at, m, reg.K1)
		c.VADDPS(g, d, reg.K1, d)
	} else {
		c.VMOVD(colIdx.As32(), at.AsX())
		c.VPBROADCASTD(at.AsX(), at)
		c.VPCMPEQD(at, m, at)
		c.VADDPS(g, d, t)
		c.VBLENDVPS(at, t, d, d)
	}
	c.VMOVUPS(d, operand.Mem{Base: colPtr})
	c.ADDQ(pixStep, colPtr)
	c.INCL(colIdx.As32())
	c.DECQ(j)
	c.JNZ(operand.LabelRef("col"))
	c.ADDQ(rowStep, rowPtr)
	c.ADDL(paramAddr(c, "ld"), rowIdx.As32())
	c.DECQ(i)
	c.JNZ(operand.LabelRef("row"))
	c.ADDQ(paramAddr(c, "gradStep"), grad)
	c.ADDQ(paramAddr(c, "argStep"), arg)
	c.ADDQ(outStride, dst)
	c.ADDQ(paramAddr(c, "sw"), idx0) // the low half is the index
	c.DECQ(n)
	c.JNZ(operand.LabelRef("output"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dspreadAve emits dspreadAve{AVX512,AVX2}: for o < n, with v the vector
// at grad + o·gradStep divided by div, v is added to the kw vectors of sp
// (spStep bytes apart) from vector o·sw on.
func dspreadAve(c *build.Context, isa directISA) {
	c.Function("dspreadAve" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(sp *float32, spStep int, grad *float32, gradStep, n, kw, sw int, div float32)")
	c.Doc("dspreadAve" + isa.suffix + " spreads the gradients of n averaging windows along a row of interleaved vectors (see directKernels.spreadAve).")
	sp, spStep, grad, gradStep, n, outStride, p, j := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RAX, reg.R10, reg.R9
	c.Load(c.Param("sp"), sp)
	c.Load(c.Param("spStep"), spStep)
	c.Load(c.Param("grad"), grad)
	c.Load(c.Param("gradStep"), gradStep)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("sw"), outStride)
	c.IMULQ(spStep, outStride)
	v, t, div := isa.vec(0), isa.vec(1), isa.vec(2)
	c.VBROADCASTSS(paramAddr(c, "div"), div)
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("output")
	c.VMOVUPS(operand.Mem{Base: grad}, v)
	c.VDIVPS(div, v, v)
	c.MOVQ(sp, p)
	c.Load(c.Param("kw"), j)
	c.Label("col")
	c.VMOVUPS(operand.Mem{Base: p}, t)
	c.VADDPS(v, t, t)
	c.VMOVUPS(t, operand.Mem{Base: p})
	c.ADDQ(spStep, p)
	c.DECQ(j)
	c.JNZ(operand.LabelRef("col"))
	c.ADDQ(gradStep, grad)
	c.ADDQ(outStride, sp)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("output"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dputRows emits dputRows{AVX512,AVX2}: for i < rows, o < n, the vector
// at dst + i·rowStep + o·pixStep = (itself +, with add) vector o of src.
func dputRows(c *build.Context, isa directISA) {
	c.Function("dputRows" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, pixStep, rowStep int, src *float32, n, rows int, add bool)")
	c.Doc("dputRows" + isa.suffix + " stores, or adds, a row of interleaved vectors to rows of them (see directKernels.putRows).")
	dst, pixStep, rowStep, src, rows := reg.RDI, reg.R8, reg.R9, reg.RSI, reg.RDX
	p, s, o, add := reg.R10, reg.R11, reg.RCX, reg.RAX
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("pixStep"), pixStep)
	c.Load(c.Param("rowStep"), rowStep)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("rows"), rows)
	c.MOVBQZX(paramAddr(c, "add"), add)
	v := isa.vec(0)
	c.TESTQ(rows, rows)
	c.JLE(operand.LabelRef("done"))
	c.Label("row")
	c.MOVQ(dst, p)
	c.MOVQ(src, s)
	c.Load(c.Param("n"), o)
	c.TESTQ(o, o)
	c.JLE(operand.LabelRef("next"))
	c.TESTQ(add, add)
	c.JNZ(operand.LabelRef("addcol"))
	c.Label("putcol")
	c.VMOVUPS(operand.Mem{Base: s}, v)
	c.VMOVUPS(v, operand.Mem{Base: p})
	c.ADDQ(pixStep, p)
	c.ADDQ(operand.U8(isa.bytes), s)
	c.DECQ(o)
	c.JNZ(operand.LabelRef("putcol"))
	c.JMP(operand.LabelRef("next"))
	c.Label("addcol")
	c.VMOVUPS(operand.Mem{Base: p}, v)
	c.VADDPS(operand.Mem{Base: s}, v, v)
	c.VMOVUPS(v, operand.Mem{Base: p})
	c.ADDQ(pixStep, p)
	c.ADDQ(operand.U8(isa.bytes), s)
	c.DECQ(o)
	c.JNZ(operand.LabelRef("addcol"))
	c.Label("next")
	c.ADDQ(rowStep, dst)
	c.DECQ(rows)
	c.JNZ(operand.LabelRef("row"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}
