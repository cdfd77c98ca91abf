package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The max-pooling kernels of the direct convolution's interleaved blocks
// (see package kernel's directpool.go): each vector holds one pixel of
// one channel of every image of a block, so a window's maximum, and the
// index of the first maximal element, is a few vector compares.
//
//	dpoolMax*    n outputs of one row of one channel: the maximum of the
//	             window of each, its values plus a bias, and its index
//	dunpool*     the gradient of n windows: each window's gradient, plus
//	             zero, goes to the element its index names, zero to the
//	             others
//	deinterleaveStream*  deinterleave* with non-temporal stores of the
//	             whole aligned vectors, for outputs not read again soon

func buildDirectPool(c *build.Context) {
	tab := directPoolConsts(c)
	for _, isa := range []directISA{direct512, direct256} {
		dpoolMax(c, isa)
		dunpool(c, isa)
	}
	deinterleaveStream512(c)
	deinterleaveStream256(c, tab)
}

// directPoolConsts emits the int32 lane numbers 0..7 for AVX2 lane masks.
func directPoolConsts(c *build.Context) operand.Mem {
	m := c.StaticGlobal("directPoolConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(l))
	}
	return m
}

// deinterleaveStream512 emits deinterleaveStreamAVX512: deinterleave512
// whose whole rows of 16 pixels at 64-byte aligned addresses are stored
// by VMOVNTPS, the others under the opmask; an SFENCE orders the stores
// before the return.
func deinterleaveStream512(c *build.Context) {
	c.Function("deinterleaveStreamAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32)")
	c.Doc("deinterleaveStreamAVX512 is deinterleaveAVX512 with non-temporal stores of whole aligned rows (see directKernels.deinterleaveStream).")
	dst, dstStride, src, srcStep, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStride"), dstStride)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStep"), srcStep)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	bias := paramAddr(c, "bias")
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(16), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	c.MOVL(operand.U32(0xffff), reg.R12L)
	c.BZHIL(reg.R10L, reg.R12L, reg.R12L)
	c.KMOVW(reg.R12L, reg.K1)
	loadRows(c, direct512, 16, width, src, srcStep, "", func(r int, m operand.Mem) {
		c.VMOVUPS(m, zmm(r))
	})
	c.ADDQ(srcStep, src)
	transpose16(c)
	c.MOVQ(dst, p)
	for r := 0; r < 16; r++ {
		if r > 0 {
			c.CMPQ(n, operand.U8(r))
			c.JLE(operand.LabelRef("stored"))
		}
		c.VADDPS_BCST(bias, zmm(r), zmm(r))
		masked, next := fmt.Sprintf("masked%d", r), fmt.Sprintf("next%d", r)
		c.CMPQ(width, operand.U8(16))
		c.JNE(operand.LabelRef(masked))
		c.TESTQ(operand.U32(63), p)
		c.JNZ(operand.LabelRef(masked))
		c.VMOVNTPS(zmm(r), operand.Mem{Base: p})
		c.JMP(operand.LabelRef(next))
		c.Label(masked)
		c.VMOVUPS(zmm(r), reg.K1, operand.Mem{Base: p})
		c.Label(next)
		c.ADDQ(dstStride, p)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(64), dst)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.SFENCE()
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// deinterleaveStream256 emits deinterleaveStreamAVX2 (see
// deinterleaveStream512): whole rows of 8 pixels at 32-byte aligned
// addresses by VMOVNTPS, the others under a VMASKMOVPS lane mask.
func deinterleaveStream256(c *build.Context, tab operand.Mem) {
	c.Function("deinterleaveStreamAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32)")
	c.Doc("deinterleaveStreamAVX2 is deinterleaveAVX2 with non-temporal stores of whole aligned rows (see directKernels.deinterleaveStream).")
	dst, dstStride, src, srcStep, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStride"), dstStride)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStep"), srcStep)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(8), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	loadRows(c, direct256, 8, width, src, srcStep, "", func(r int, m operand.Mem) {
		c.VMOVUPS(m, ymm(r))
	})
	c.ADDQ(srcStep, src)
	transpose8(c)
	lanesBelowDirect(c, tab, width, reg.Y0)
	c.VBROADCASTSS(paramAddr(c, "bias"), reg.Y1)
	c.MOVQ(dst, p)
	for r := 0; r < 8; r++ {
		if r > 0 {
			c.CMPQ(n, operand.U8(r))
			c.JLE(operand.LabelRef("stored"))
		}
		c.VADDPS(reg.Y1, ymm(8+r), ymm(8+r))
		masked, next := fmt.Sprintf("masked%d", r), fmt.Sprintf("next%d", r)
		c.CMPQ(width, operand.U8(8))
		c.JNE(operand.LabelRef(masked))
		c.TESTQ(operand.U32(31), p)
		c.JNZ(operand.LabelRef(masked))
		c.VMOVNTPS(ymm(8+r), operand.Mem{Base: p})
		c.JMP(operand.LabelRef(next))
		c.Label(masked)
		c.VMASKMOVPS(ymm(8+r), reg.Y0, operand.Mem{Base: p})
		c.Label(next)
		c.ADDQ(dstStride, p)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(32), dst)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.SFENCE()
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dpoolMax emits dpoolMax{AVX512,AVX2}: for o < n,
//
//	best = −MaxFloat32, idx = −1
//	for i < kh, j < kw: v = vector at src + o·sw·pixStep + i·rowStep + j·pixStep, plus bias
//	                    if v > best (ordered): best, idx = v, base + o·sw + i·ld + j
//	store best at dst + o·dstStep, idx at arg + o·argStep
//
// Caffe's rule: the first maximal element of the window in row-major
// order wins, and −Inf and NaN are never chosen.
func dpoolMax(c *build.Context, isa directISA) {
	c.Function("dpoolMax" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStep int, arg *int32, argStep int, src *float32, pixStep, rowStep, n, kh, kw, sw int, base, ld int32, bias float32)")
	c.Doc("dpoolMax" + isa.suffix + " max-pools n windows of interleaved pixel vectors, recording the index of each maximum (see directKernels.maxPool).")
	dst, arg, src, pixStep, rowStep, n := reg.RDI, reg.RSI, reg.RBX, reg.R10, reg.R11, reg.RCX
	idx0, outStride, rowPtr, colPtr, rowIdx, colIdx, i, j := reg.RAX, reg.R14, reg.R12, reg.R13, reg.RDX, reg.R8, reg.R15, reg.R9
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("arg"), arg)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("pixStep"), pixStep)
	c.Load(c.Param("rowStep"), rowStep)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("sw"), outStride)
	c.IMULQ(pixStep, outStride)
	c.MOVL(paramAddr(c, "base"), idx0.As32())
	v, best, idx, bias, lowest, none := isa.vec(0), isa.vec(1), isa.vec(2), isa.vec(isa.regs-1), isa.vec(isa.regs-2), isa.vec(isa.regs-3)
	cmp, bidx := isa.vec(3), isa.vec(4)
	c.VBROADCASTSS(paramAddr(c, "bias"), bias)
	c.MOVL(operand.U32(0xff7fffff), rowIdx.As32()) // −MaxFloat32
	if isa.bytes == 64 {
		c.VPBROADCASTD(rowIdx.As32(), lowest)
		c.VPTERNLOGD(operand.U8(0xff), none, none, none)
	} else {
		c.VMOVD(rowIdx.As32(), lowest.AsX())
		c.VPBROADCASTD(lowest.AsX(), lowest)
		c.VPCMPEQD(none, none, none)
	}
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	dpoolMaxPairs(c, isa, dst, arg, src, pixStep, rowStep, n, outStride, idx0, i, v, best, idx, cmp, bias, lowest, none)
	c.Label("output")
	if isa.bytes == 64 {
		c.VMOVAPS(lowest, best)
		c.VMOVDQA32(none, idx)
	} else {
		c.VMOVAPS(lowest, best)
		c.VMOVDQA(none, idx)
	}
	c.MOVQ(src, rowPtr)
	c.MOVL(idx0.As32(), rowIdx.As32())
	c.Load(c.Param("kh"), i)
	c.Label("row")
	c.MOVQ(rowPtr, colPtr)
	c.MOVL(rowIdx.As32(), colIdx.As32())
	c.Load(c.Param("kw"), j)
	c.Label("col")
	c.VADDPS(operand.Mem{Base: colPtr}, bias, v)
	if isa.bytes == 64 {
		c.VCMPPS(operand.U8(0x1e), best, v, reg.K1) // K1 = v > best, ordered
		c.VMOVAPS(v, reg.K1, best)
		c.VPBROADCASTD(colIdx.As32(), reg.K1, idx)
	} else {
		c.VCMPPS(operand.U8(0x1e), best, v, cmp)
		c.VBLENDVPS(cmp, v, best, best)
		c.VMOVD(colIdx.As32(), bidx.AsX())
		c.VPBROADCASTD(bidx.AsX(), bidx)
		c.VBLENDVPS(cmp, bidx, idx, idx)
	}
	c.ADDQ(pixStep, colPtr)
	c.INCL(colIdx.As32())
	c.DECQ(j)
	c.JNZ(operand.LabelRef("col"))
	c.ADDQ(rowStep, rowPtr)
	c.ADDL(paramAddr(c, "ld"), rowIdx.As32())
	c.DECQ(i)
	c.JNZ(operand.LabelRef("row"))
	c.VMOVUPS(best, operand.Mem{Base: dst})
	if isa.bytes == 64 {
		c.VMOVDQU32(idx, operand.Mem{Base: arg})
	} else {
		c.VMOVDQU(idx, operand.Mem{Base: arg})
	}
	c.ADDQ(paramAddr(c, "dstStep"), dst)
	c.ADDQ(paramAddr(c, "argStep"), arg)
	c.ADDQ(outStride, src)
	c.ADDQ(paramAddr(c, "sw"), idx0) // the low half is the index
	c.DECQ(n)
	c.JNZ(operand.LabelRef("output"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// dunpool emits dunpool{AVX512,AVX2}: for o < n, with g the vector at
// grad + o·gradStep plus zero and m the index vector at arg + o·argStep,
//
//	for i < kh, j < kw: the vector at dst + o·sw·pixStep + i·rowStep + j·pixStep
//	                    = g where m = base + o·sw + i·ld + j, else 0
func dunpool(c *build.Context, isa directISA) {
	c.Function("dunpool" + isa.suffix)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, pixStep, rowStep int, grad *float32, gradStep int, arg *int32, argStep, n, kh, kw, sw int, base, ld int32)")
	c.Doc("dunpool" + isa.suffix + " routes the gradients of n max-pooling windows of interleaved pixel vectors to their maxima (see directKernels.unpool).")
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
	g, m, at, out, zeros := isa.vec(0), isa.vec(1), isa.vec(2), isa.vec(3), isa.vec(isa.regs-1)
	zero(c, isa, zeros)
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	dunpoolPairs(c, isa, dst, arg, grad, pixStep, rowStep, n, outStride, idx0, i, g, m, out, zeros)
	c.Label("output")
	c.VMOVUPS(operand.Mem{Base: grad}, g)
	c.VADDPS(zeros, g, g)
	c.VMOVUPS(operand.Mem{Base: arg}, m)
	c.MOVQ(dst, rowPtr)
	c.MOVL(idx0.As32(), rowIdx.As32())
	c.Load(c.Param("kh"), i)
	c.Label("row")
	c.MOVQ(rowPtr, colPtr)
	c.MOVL(rowIdx.As32(), colIdx.As32())
	c.Load(c.Param("kw"), j)
	c.Label("col")
	if isa.bytes == 64 {
		c.VPBROADCASTD(colIdx.As32(), at)
		c.VPCMPEQD(at, m, reg.K1)
		c.VMOVAPS_Z(g, reg.K1, out)
	} else {
		c.VMOVD(colIdx.As32(), at.AsX())
		c.VPBROADCASTD(at.AsX(), at)
		c.VPCMPEQD(at, m, out)
		c.VANDPS(g, out, out)
	}
	c.VMOVUPS(out, operand.Mem{Base: colPtr})
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

// The 2×2 windows (LeNet's and VGG's poolings) take a path of their own
// (dpoolMax and dunpool), unrolled: each window's four vectors at fixed offsets, the indexes as
// offsets from a vector of the window's first index (base + o·sw), which
// one vector addition moves on. Where kh or kw is not 2 the kernels fall
// through to their loops.

// broadcastD sets every int32 lane of v to the low half of r.
func broadcastD(c *build.Context, isa directISA, r reg.GPPhysical, v reg.VecPhysical) {
	if isa.bytes == 64 {
		c.VPBROADCASTD(r.As32(), v)
	} else {
		c.VMOVD(r.As32(), v.AsX())
		c.VPBROADCASTD(v.AsX(), v)
	}
}

// windowOffsets checks for 2×2 windows (jumping to "output", the loops,
// otherwise) and sets up the pair path's registers: the vectors of
// index offsets 1, ld and ld+1 (0 is a zero vector the caller has), the
// window's first index base and the step sw between windows, and the
// byte offset rowStep+pixStep of a window's last vector in diag.
func windowOffsets(c *build.Context, isa directISA, pixStep, rowStep, idx0, tmp, diag reg.GPPhysical, c1, cld, cld1, vbase, vsw reg.VecPhysical) {
	c.Load(c.Param("kh"), tmp)
	c.CMPQ(tmp, operand.U8(2))
	c.JNE(operand.LabelRef("output"))
	c.Load(c.Param("kw"), tmp)
	c.CMPQ(tmp, operand.U8(2))
	c.JNE(operand.LabelRef("output"))
	c.MOVL(operand.U32(1), tmp.As32())
	broadcastD(c, isa, tmp, c1)
	c.MOVL(paramAddr(c, "ld"), tmp.As32())
	broadcastD(c, isa, tmp, cld)
	c.INCL(tmp.As32())
	broadcastD(c, isa, tmp, cld1)
	broadcastD(c, isa, idx0, vbase)
	c.Load(c.Param("sw"), tmp)
	broadcastD(c, isa, tmp, vsw)
	c.MOVQ(rowStep, diag)
	c.ADDQ(pixStep, diag)
}

// windowVector is one of a 2×2 window's vectors: where it lies and the
// vector of its index's offset from the window's first.
type windowVector struct {
	at  operand.Mem
	cst reg.VecPhysical
}

// windowVectors returns the four vectors of the 2×2 window at base in
// row-major order (Caffe's order of the compares), the offset vectors
// 0, 1, ld and ld+1 given.
func windowVectors(base, pixStep, rowStep, diag reg.GPPhysical, c0, c1, cld, cld1 reg.VecPhysical) []windowVector {
	return []windowVector{
		{operand.Mem{Base: base}, c0},
		{operand.Mem{Base: base, Index: pixStep, Scale: 1}, c1},
		{operand.Mem{Base: base, Index: rowStep, Scale: 1}, cld},
		{operand.Mem{Base: base, Index: diag, Scale: 1}, cld1},
	}
}

// dpoolMaxPairs emits dpoolMax's path for 2×2 windows (see
// windowOffsets): the same compares in the same order, the winner's
// offset kept and the window's first index added where one won.
func dpoolMaxPairs(c *build.Context, isa directISA, dst, arg, src, pixStep, rowStep, n, outStride, idx0, tmp reg.GPPhysical, v, best, off, cmp, bias, lowest, none reg.VecPhysical) {
	c1, cld, cld1, vbase, vsw, zeros := isa.vec(4), isa.vec(5), isa.vec(6), isa.vec(7), isa.vec(8), isa.vec(9)
	diag := reg.R9
	windowOffsets(c, isa, pixStep, rowStep, idx0, tmp, diag, c1, cld, cld1, vbase, vsw)
	zero(c, isa, zeros)
	c.Label("pairs")
	c.VMOVAPS(lowest, best)
	if isa.bytes == 64 {
		c.VMOVDQA32(none, off)
	} else {
		c.VMOVDQA(none, off)
	}
	for i, e := range windowVectors(src, pixStep, rowStep, diag, zeros, c1, cld, cld1) {
		if isa.bytes == 64 {
			// An opmask each: reusing one serialises the windows.
			k, v := []reg.OpmaskPhysical{reg.K1, reg.K2, reg.K3, reg.K4}[i], isa.vec(10+i)
			c.VADDPS(e.at, bias, v)
			c.VCMPPS(operand.U8(0x1e), best, v, k) // k = v > best, ordered
			c.VMOVAPS(v, k, best)
			c.VMOVDQA32(e.cst, k, off)
		} else {
			c.VADDPS(e.at, bias, v)
			c.VCMPPS(operand.U8(0x1e), best, v, cmp)
			c.VBLENDVPS(cmp, v, best, best)
			c.VBLENDVPS(cmp, e.cst, off, off)
		}
	}
	// A lane chose an element iff its maximum is above −MaxFloat32.
	if isa.bytes == 64 {
		c.VCMPPS(operand.U8(0x1e), lowest, best, reg.K5)
		c.VPADDD(vbase, off, reg.K5, off)
		c.VMOVUPS(best, operand.Mem{Base: dst})
		c.VMOVDQU32(off, operand.Mem{Base: arg})
	} else {
		c.VCMPPS(operand.U8(0x1e), lowest, best, cmp)
		c.VPADDD(vbase, off, v)
		c.VBLENDVPS(cmp, v, off, off)
		c.VMOVUPS(best, operand.Mem{Base: dst})
		c.VMOVDQU(off, operand.Mem{Base: arg})
	}
	nextPair(c, vsw, vbase, n, [2]operand.Op{paramAddr(c, "dstStep"), dst}, [2]operand.Op{paramAddr(c, "argStep"), arg}, [2]operand.Op{outStride, src})
}

// dunpoolPairs emits dunpool's path for 2×2 windows (see
// windowOffsets): each window's index minus its first index, compared
// with the four offsets (AVX-512: into an opmask each, so that the four
// stores do not wait for one another's compare). On Zen 5 the AVX-512
// path routes a channel of LeNet's conv1 output 1.7× as fast as the
// loops (BenchmarkDirectPoolKernels), whose exit branches of two rounds
// it saves; in LeNet's training the two run as fast (-bench
// 'TrainLeNet/threads=1$', alternated): there each store is a line of
// the band that misses the L1 cache, and the stores set the pace.
func dunpoolPairs(c *build.Context, isa directISA, dst, arg, grad, pixStep, rowStep, n, outStride, idx0, tmp reg.GPPhysical, g, d, out, zeros reg.VecPhysical) {
	c1, cld, cld1, vbase, vsw := isa.vec(4), isa.vec(5), isa.vec(6), isa.vec(7), isa.vec(8)
	diag := reg.R9
	windowOffsets(c, isa, pixStep, rowStep, idx0, tmp, diag, c1, cld, cld1, vbase, vsw)
	c.Label("pairs")
	c.VMOVUPS(operand.Mem{Base: grad}, g)
	c.VADDPS(zeros, g, g)
	c.VMOVUPS(operand.Mem{Base: arg}, d)
	c.VPSUBD(vbase, d, d)
	for i, e := range windowVectors(dst, pixStep, rowStep, diag, zeros, c1, cld, cld1) {
		if isa.bytes == 64 {
			k, o := []reg.OpmaskPhysical{reg.K1, reg.K2, reg.K3, reg.K4}[i], isa.vec(10+i)
			c.VPCMPEQD(e.cst, d, k)
			c.VMOVAPS_Z(g, k, o)
			c.VMOVUPS(o, e.at)
			continue
		}
		c.VPCMPEQD(e.cst, d, out)
		c.VANDPS(g, out, out)
		c.VMOVUPS(out, e.at)
	}
	nextPair(c, vsw, vbase, n, [2]operand.Op{paramAddr(c, "gradStep"), grad}, [2]operand.Op{paramAddr(c, "argStep"), arg}, [2]operand.Op{outStride, dst})
}

// nextPair ends a pair path's window: the window's first index moves on by
// sw, each pointer (steps[i][1]) by its step (steps[i][0]), and the path
// loops while windows are left, then jumps to "done".
func nextPair(c *build.Context, vsw, vbase reg.VecPhysical, n reg.GPPhysical, steps ...[2]operand.Op) {
	c.VPADDD(vsw, vbase, vbase)
	for _, st := range steps {
		c.ADDQ(st[0], st[1])
	}
	c.DECQ(n)
	c.JNZ(operand.LabelRef("pairs"))
	c.JMP(operand.LabelRef("done"))
}
