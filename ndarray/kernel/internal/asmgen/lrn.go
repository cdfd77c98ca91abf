package main

import (
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The kernels of cross-channel local response normalisation, for one
// channel plane at a time, with 256-bit vectors (AVX2 and FMA), which the
// AVX-512 implementation runs too: on the layer's planes, which start
// anywhere in a cache line, 512-bit versions of these kernels measured
// slower (AlexNet's norm1 forward and backward 1.2× slower, norm2 about
// the same; the backward step with its six streams of unaligned loads
// made the difference), their rate being that of the divider and
// square-root unit, which 256-bit vectors keep as busy. Each fuses the
// element-wise passes of the layer's plane loop into one, with the same
// operations in the same order, so that the results are those of the
// separate primitives (Mul, Axpy, Sqrt, Div, Add) to the bit:
//
//	s  = fma(−a, xout·xout, fma(a, xin·xin, sc))   the sliding window's scale
//	sc = s
//
// and then, by kernel:
//
//	lrnScale:     nothing more
//	lrnForward75: y = x · (1 / (√s · √√s))               (β = ¾)
//	lrnRatio:     r = (dy · y) / s
//	lrnRatio75:   r = (dy · y) / s, pow = 1 / (√s · √√s) (β = ¾)
//
// and the backward's step for a channel, with the running window sum acc
// of the ratios:
//
//	lrnBackward:  acc += rin, dx = fma(−ratio, x·acc, dy·pow), acc −= rout
//
// The products are rounded before they are added, as the separate passes
// round them when they store them.
func buildLRN(c *build.Context) {
	one := c.StaticGlobal("lrnOne")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	c.AddDatum(0, operand.U32(math.Float32bits(1)))
	for _, isa := range []vecISA{vec256} {
		lrnScaleKernel(c, isa, "lrnScale", one)
		lrnScaleKernel(c, isa, "lrnForward75", one)
		lrnScaleKernel(c, isa, "lrnRatio", one)
		lrnScaleKernel(c, isa, "lrnRatio75", one)
		lrnBackwardKernel(c, isa)
	}
}

// vop returns the packed or scalar form of an instruction for a group of
// w bytes.
func vop(w int, packed, scalar func(...operand.Op)) func(...operand.Op) {
	if w == 4 {
		return scalar
	}
	return packed
}

// lrnScaleKernel emits one of the kernels that update the scale plane
// (lrnScale, lrnForward75, lrnRatio, lrnRatio75).
func lrnScaleKernel(c *build.Context, isa vecISA, name string, one operand.Mem) {
	var sig, doc string
	switch name {
	case "lrnScale":
		sig = "func(sc, xin, xout []float32, a, na float32)"
		doc = "sc[i] = fma(na, xout[i]², fma(a, xin[i]², sc[i])) for i < len(sc), with the squares rounded (na = −a)"
	case "lrnForward75":
		sig = "func(y, sc, x, xin, xout []float32, a, na float32)"
		doc = "sc[i] as lrnScale, then y[i] = x[i]·(1/(√sc[i]·√√sc[i])), each operation rounded, for i < len(sc)"
	case "lrnRatio":
		sig = "func(r, sc, xin, xout, dy, y []float32, a, na float32)"
		doc = "sc[i] as lrnScale, then r[i] = (dy[i]·y[i]) / sc[i], each operation rounded, for i < len(sc)"
	case "lrnRatio75":
		sig = "func(r, pow, sc, xin, xout, dy, y []float32, a, na float32)"
		doc = "sc[i] as lrnScale, then r[i] = (dy[i]·y[i]) / sc[i] and pow[i] = 1/(√sc[i]·√√sc[i]), each operation rounded, for i < len(sc)"
	}
	vecFunc(c, isa, name, sig, doc)
	n := reg.RCX
	sc, xin, xout := reg.RSI, reg.RDI, reg.RDX
	c.Load(c.Param("sc").Len(), n)
	c.Load(c.Param("sc").Base(), sc)
	c.Load(c.Param("xin").Base(), xin)
	c.Load(c.Param("xout").Base(), xout)
	ptrs := []reg.Register{sc, xin, xout}
	var y, pow, x, r, dy reg.Register
	switch name {
	case "lrnForward75":
		y, x = reg.R8, reg.R10
		c.Load(c.Param("y").Base(), y)
		c.Load(c.Param("x").Base(), x)
		ptrs = append(ptrs, y, x)
		c.VBROADCASTSS(one, isa.vec(14))
	case "lrnRatio", "lrnRatio75":
		r, dy, y = reg.R8, reg.R9, reg.R10
		c.Load(c.Param("r").Base(), r)
		c.Load(c.Param("dy").Base(), dy)
		c.Load(c.Param("y").Base(), y)
		ptrs = append(ptrs, r, dy, y)
		if name == "lrnRatio75" {
			pow = reg.R11
			c.Load(c.Param("pow").Base(), pow)
			ptrs = append(ptrs, pow)
			c.VBROADCASTSS(one, isa.vec(14))
		}
	}
	c.VBROADCASTSS(paramAddr(c, "a"), isa.vec(12))
	c.VBROADCASTSS(paramAddr(c, "na"), isa.vec(13))
	stride(c, isa, n, ptrs, func(u, w int) {
		s, t := vreg(isa, 2*u, w), vreg(isa, 2*u+1, w)
		a, na, ones := vreg(isa, 12, w), vreg(isa, 13, w), vreg(isa, 14, w)
		mul, fma := vop(w, c.VMULPS, c.VMULSS), vop(w, c.VFMADD231PS, c.VFMADD231SS)
		at := func(p reg.Register) operand.Mem { return operand.Mem{Base: p, Disp: u * w} }
		load(c, at(sc), s, w)
		load(c, at(xin), t, w)
		mul(t, t, t)
		fma(t, a, s)
		load(c, at(xout), t, w)
		mul(t, t, t)
		fma(t, na, s)
		store(c, s, at(sc), w)
		// pow75 leaves 1/(√s·√√s) in s, using t.
		pow75 := func() {
			if w == 4 {
				c.VSQRTSS(s, s, t)
				c.VSQRTSS(t, t, s)
				c.VMULSS(s, t, t)
				c.VDIVSS(t, ones, s)
			} else {
				c.VSQRTPS(s, t)
				c.VSQRTPS(t, s)
				c.VMULPS(s, t, t)
				c.VDIVPS(t, ones, s)
			}
		}
		switch name {
		case "lrnForward75":
			pow75()
			if w == 4 {
				c.VMOVSS(at(x), t)
				c.VMULSS(s, t, t)
			} else {
				c.VMULPS(at(x), s, t)
			}
			store(c, t, at(y), w)
		case "lrnRatio", "lrnRatio75":
			load(c, at(dy), t, w)
			if w == 4 {
				c.VMOVSS(at(y), xmm(15))
				c.VMULSS(xmm(15), t, t)
				c.VDIVSS(s, t, t)
			} else {
				c.VMULPS(at(y), t, t)
				c.VDIVPS(s, t, t)
			}
			store(c, t, at(r), w)
			if name == "lrnRatio75" {
				pow75()
				store(c, s, at(pow), w)
			}
		}
	}, nil)
	finish(c)
}

// lrnBackwardKernel emits lrnBackward{AVX512,AVX2}.
func lrnBackwardKernel(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "lrnBackward", "func(dx, acc, rin, rout, x, dy, pow []float32, nratio float32)",
		"acc[i] += rin[i], dx[i] = fma(nratio, x[i]·acc[i], dy[i]·pow[i]) and acc[i] −= rout[i], each operation rounded, for i < len(acc)")
	n := reg.RCX
	dx, acc, rin, rout, x, dy, pow := reg.RSI, reg.RDI, reg.RDX, reg.R8, reg.R9, reg.R10, reg.R11
	c.Load(c.Param("acc").Len(), n)
	for _, p := range []struct {
		name string
		r    reg.Register
	}{{"dx", dx}, {"acc", acc}, {"rin", rin}, {"rout", rout}, {"x", x}, {"dy", dy}, {"pow", pow}} {
		c.Load(c.Param(p.name).Base(), p.r)
	}
	c.VBROADCASTSS(paramAddr(c, "nratio"), isa.vec(15))
	stride(c, isa, n, []reg.Register{dx, acc, rin, rout, x, dy, pow}, func(u, w int) {
		a, t, d := vreg(isa, 3*u, w), vreg(isa, 3*u+1, w), vreg(isa, 3*u+2, w)
		nr := vreg(isa, 15, w)
		at := func(p reg.Register) operand.Mem { return operand.Mem{Base: p, Disp: u * w} }
		load(c, at(acc), a, w)
		load(c, at(dy), d, w)
		if w == 4 {
			c.VMOVSS(at(rin), t)
			c.VADDSS(t, a, a)
			c.VMOVSS(at(pow), t)
			c.VMULSS(t, d, d)
			c.VMOVSS(at(x), t)
			c.VMULSS(a, t, t)
			c.VFMADD231SS(t, nr, d)
			c.VMOVSS(at(rout), t)
			c.VSUBSS(t, a, a)
		} else {
			c.VADDPS(at(rin), a, a)
			c.VMULPS(at(pow), d, d)
			c.VMULPS(at(x), a, t)
			c.VFMADD231PS(t, nr, d)
			c.VSUBPS(at(rout), a, a)
		}
		store(c, d, at(dx), w)
		store(c, a, at(acc), w)
	}, nil)
	finish(c)
}
