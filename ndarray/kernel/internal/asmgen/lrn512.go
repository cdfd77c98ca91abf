package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The AVX-512 kernels of cross-channel LRN with β = ¾ (lrnForward75,
// lrnRatio75 and the backward steps), the 256-bit kernels of lrn.go in
// 512-bit vectors with their square roots computed on the FMA units
// instead of the divider and square-root unit. That unit is the 256-bit
// kernels' limit: on cores whose 512-bit VSQRTPS and VDIVPS take twice as
// long as the 256-bit ones, it does as many elements a cycle at either
// width, while two FMA ports do twice as many at 512 bits. So each
// square root here is an estimate (VRSQRT14PS, relative error < 2⁻¹⁴),
// one Goldschmidt step for √s and 1/(2√s) together, and a last
// correction with the exact remainder s − g² (an FMA):
//
//	y = rsqrt14(s); g = s·y; h = y/2
//	r = 0.5 − g·h; g += g·r; h += h·r
//	g += (s − g·g)·h
//
// which gives the correctly rounded √s — the VSQRTPS result — for every
// s in [2⁻¹⁰⁰, 2¹⁰⁰]: the result depends only on the significand and the
// parity of the exponent in that range (every operation scales exactly by
// powers of four), and the package's tests compare it with VSQRTPS for
// every float32 in that range; at run time the package checks it once,
// on every 64th float32 in [1, 4), before it selects these kernels
// (lrnSqrtAVX512), so that a core whose estimate differs keeps the
// 256-bit ones. A vector with a lane outside that range (or NaN) takes
// VSQRTPS. The division 1/(√s·√√s) and the ratio's stay on the divider,
// which runs beside the FMA units; every value is the same bits as the
// 256-bit kernels'.
func buildLRN512(c *build.Context) {
	one := c.StaticGlobal("lrnOne512")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	c.AddDatum(0, operand.U32(math.Float32bits(1)))
	isa := vec512
	lrnScaleKernel(c, isa, "lrnForward75", one)
	lrnScaleKernel(c, isa, "lrnRatio75", one)
	for _, recompute := range []bool{false, true} {
		lrnStepKernel(c, isa, false, recompute)
		lrnStepKernel(c, isa, true, recompute)
	}
	lrnSqrtKernel(c)
}

// The registers of the 512-bit square roots: the constants, and four
// temporaries for each of the (at most two) unrolled groups.
const (
	nrHalf = 16 // 0.5
	nrLo   = 17 // 2⁻¹⁰⁰
	nrHi   = 18 // 2¹⁰⁰
	nrTmp  = 20
)

// nrConsts loads the constants of the 512-bit square roots (nothing for
// 256-bit kernels), at the start of a kernel, where AX is free.
func nrConsts(c *build.Context, isa vecISA) {
	if isa.bytes != 64 {
		return
	}
	for _, k := range []struct {
		r int
		v float32
	}{{nrHalf, 0.5}, {nrLo, 0x1p-100}, {nrHi, 0x1p100}} {
		c.MOVL(operand.U32(math.Float32bits(k.v)), reg.EAX)
		c.VPBROADCASTD(reg.EAX, zmm(k.r))
	}
}

// nrLabels numbers the labels of the square roots' slow paths, and
// nrSlow holds the slow paths of the kernel being emitted, which
// finishNR emits after its return, out of the loop's way.
var (
	nrLabels int
	nrSlow   []func()
)

// finishNR ends a kernel (finish), then emits its slow paths.
func finishNR(c *build.Context) {
	finish(c)
	for _, f := range nrSlow {
		f()
	}
	nrSlow = nil
}

// emitPow75 leaves 1/(√s·√√s) in dst, using e (distinct from s and dst,
// which may be s), for a group of w bytes, the u-th of its step: with
// VSQRTPS (VSQRTSS), or on 512-bit vectors with sqrtNR where every lane of
// s is in [2⁻¹⁰⁰, 2¹⁰⁰].
func emitPow75(c *build.Context, isa vecISA, w, u int, s, e, dst, one reg.VecPhysical) {
	switch {
	case w == 4:
		c.VSQRTSS(s, s, e)
		c.VSQRTSS(e, e, dst)
		c.VMULSS(dst, e, e)
		c.VDIVSS(e, one, dst)
		return
	case w == 64:
		nrBranch(c, s, func() {
			sqrtNR(c, u, s, e)
			sqrtNR(c, u, e, dst)
		}, func() {
			c.VSQRTPS(s, e)
			c.VSQRTPS(e, dst)
		})
	default:
		c.VSQRTPS(s, e)
		c.VSQRTPS(e, dst)
	}
	c.VMULPS(dst, e, e)
	c.VDIVPS(e, one, dst)
}

// nrBranch emits fast, which may take sqrtNR's square roots of s, where
// every lane of s is in [2⁻¹⁰⁰, 2¹⁰⁰] (an ordered compare: NaN is not),
// and else slow, which takes VSQRTPS's: slow is emitted by finishNR after
// the kernel's return, out of the loop's way, and jumps back.
func nrBranch(c *build.Context, s reg.VecPhysical, fast, slow func()) {
	nrLabels++
	slowLabel, join := fmt.Sprintf("sqrtslow%d", nrLabels), fmt.Sprintf("sqrtjoin%d", nrLabels)
	c.VCMPPS(operand.U8(cmpGEOQ), zmm(nrLo), s, reg.K1)
	c.VCMPPS(operand.U8(cmpLEOQ), zmm(nrHi), s, reg.K1, reg.K1)
	c.KORTESTW(reg.K1, reg.K1)
	c.JCC(operand.LabelRef(slowLabel))
	fast()
	c.Label(join)
	nrSlow = append(nrSlow, func() {
		c.Label(slowLabel)
		slow()
		c.JMP(operand.LabelRef(join))
	})
}

// cmpGEOQ is VCMPPS's predicate greater or equal, ordered (false if
// either is NaN).
const cmpGEOQ = 0x1d

// sqrtNR sets g to √s (512-bit vectors, s in [2⁻¹⁰⁰, 2¹⁰⁰], g distinct
// from s) with the u-th group's temporaries.
func sqrtNR(c *build.Context, u int, s, g reg.VecPhysical) {
	h, r := zmm(nrTmp+2*u), zmm(nrTmp+2*u+1)
	half := zmm(nrHalf)
	c.VRSQRT14PS(s, h)
	c.VMULPS(h, s, g)
	c.VMULPS(half, h, h)
	c.VMOVAPS(half, r)
	c.VFNMADD231PS(h, g, r) // r = 0.5 − g·h
	c.VFMADD231PS(r, g, g)  // g += g·r
	c.VFMADD231PS(r, h, h)  // h += h·r
	c.VMOVAPS(s, r)
	c.VFNMADD231PS(g, g, r) // r = s − g·g, exact
	c.VFMADD231PS(r, h, g)  // g += r·h
}

// lrnSqrtKernel emits lrnSqrtAVX512, the square root of the 512-bit LRN
// kernels on its own, which the package checks against VSQRTPS.
func lrnSqrtKernel(c *build.Context) {
	isa := vec512
	vecFunc(c, isa, "lrnSqrt", "func(dst, x []float32)",
		"dst[i] = √x[i] as the 512-bit LRN kernels compute it (VRSQRT14PS, a Goldschmidt step and a correction; VSQRTPS for a vector with a lane outside [2⁻¹⁰⁰, 2¹⁰⁰]), for i < len(x)")
	nrConsts(c, isa)
	n, dst, x := reg.RCX, reg.RDI, reg.RSI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("dst").Base(), dst)
	c.Load(c.Param("x").Base(), x)
	strideUnroll(c, isa, 2, n, []reg.Register{dst, x}, func(u, w int) {
		s, g := vreg(isa, 2*u, w), vreg(isa, 2*u+1, w)
		at := func(p reg.Register) operand.Mem { return operand.Mem{Base: p, Disp: u * w} }
		load(c, at(x), s, w)
		if w == 4 {
			c.VSQRTSS(s, s, g)
		} else {
			nrBranch(c, s, func() { sqrtNR(c, u, s, g) }, func() { c.VSQRTPS(s, g) })
		}
		store(c, g, at(dst), w)
	}, nil)
	finishNR(c)
}
