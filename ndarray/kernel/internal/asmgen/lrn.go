package main

import (
	"math"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The kernels of cross-channel local response normalisation, for one
// channel plane at a time, with 256-bit vectors (AVX2 and FMA), which the
// AVX-512 implementation runs too but for those with β = ¾ (lrn512.go
// generates those in 512-bit vectors with their square roots on the FMA
// units): on the layer's planes, which start anywhere in a cache line,
// 512-bit versions of these kernels with VSQRTPS measured slower
// (AlexNet's norm1 forward and backward 1.2× slower on an AMD core, norm2
// about the same; the backward step with its six streams of unaligned
// loads made the difference), their rate being that of the divider and
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
// and lrnBackwardReLU, which then passes dx through the gradient of the
// in-place ReLU that wrote x (dx if x > 0, else slope·dx, as reluGrad).
//
// The products are rounded before they are added, as the separate passes
// round them when they store them.
// cmpLTOQ is VCMPPS's predicate less than, ordered (false if either is
// NaN): 0 < x where the memory operand x is the second source.
const cmpLTOQ = 0x11

func buildLRN(c *build.Context) {
	one := c.StaticGlobal("lrnOne")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	c.AddDatum(0, operand.U32(math.Float32bits(1)))
	for _, isa := range []vecISA{vec256} {
		lrnScaleKernel(c, isa, "lrnScale", one)
		lrnScaleKernel(c, isa, "lrnForward75", one)
		lrnScaleKernel(c, isa, "lrnRatio", one)
		lrnScaleKernel(c, isa, "lrnRatio75", one)
		lrnBackwardKernel(c, isa, false)
		lrnBackwardKernel(c, isa, true)
		for _, recompute := range []bool{false, true} {
			lrnStepKernel(c, isa, false, recompute)
			lrnStepKernel(c, isa, true, recompute)
		}
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
	nrConsts(c, isa)
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
	strideAhead(c, isa, 4, n, ptrs, []reg.Register{xin}, func(u, w int) {
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
		pow75 := func() { emitPow75(c, isa, w, u, s, t, s, ones) }
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
	finishNR(c)
}

// lrnBackwardKernel emits lrnBackward{AVX512,AVX2}, or with relu
// lrnBackwardReLU{AVX512,AVX2}.
func lrnBackwardKernel(c *build.Context, isa vecISA, relu bool) {
	if relu {
		vecFunc(c, isa, "lrnBackwardReLU", "func(dx, acc, rin, rout, x, dy, pow []float32, nratio, slope float32)",
			"acc[i] += rin[i], d = fma(nratio, x[i]·acc[i], dy[i]·pow[i]), acc[i] −= rout[i] and dx[i] = d if x[i] > 0, else slope·d, each operation rounded, for i < len(acc)")
	} else {
		vecFunc(c, isa, "lrnBackward", "func(dx, acc, rin, rout, x, dy, pow []float32, nratio float32)",
			"acc[i] += rin[i], dx[i] = fma(nratio, x[i]·acc[i], dy[i]·pow[i]) and acc[i] −= rout[i], each operation rounded, for i < len(acc)")
	}
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
	if relu {
		c.VBROADCASTSS(paramAddr(c, "slope"), isa.vec(13))
		c.VXORPS(isa.vec(12), isa.vec(12), isa.vec(12))
	}
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
		store(c, a, at(acc), w)
		if relu {
			// a = slope·d, t = (0 < x), d = t ? d : a.
			zero, slope := vreg(isa, 12, w), vreg(isa, 13, w)
			if w == 4 {
				c.VMULSS(slope, d, a)
				c.VMOVSS(at(x), t)
				c.VCMPSS(operand.U8(cmpGTOQ), zero, t, t)
			} else {
				c.VMULPS(slope, d, a)
				c.VCMPPS(operand.U8(cmpLTOQ), operand.Mem{Base: x, Disp: u * w}, zero, t)
			}
			c.VBLENDVPS(t, d, a, d)
		}
		store(c, d, at(dx), w)
	}, nil)
	finish(c)
}

// lrnStepKernel emits lrnStep75{AVX2} (or with relu lrnStep75ReLU): one
// channel's whole step of the backward pass in one pass over the
// positions, lrnRatio75 of the channel pre ahead (its scale moved on, its
// ratio r and power pow) followed by lrnBackward (lrnBackwardReLU) of the
// current channel with that ratio as the one entering the window:
//
//	s = fma(−a, xout², fma(a, xin², sc)); sc = s
//	r = (dyr·yr) / s; pow = 1/(√s·√√s)
//	acc += r; d = fma(−ratio, x·acc, dy·powc); acc −= rout
//	dx = d (relu: d if x > 0, else slope·d)
//
// each operation rounded as in those kernels, so that the values are the
// same bits; the divisions and square roots of the ratio then overlap the
// stream of the gradient's stores.
//
// With recompute (lrnStep75X, lrnStep75XReLU) yr is the channel's input
// instead of its output, which is recomputed as yr·pow, the forward
// pass's operation: the output is not read.
func lrnStepKernel(c *build.Context, isa vecISA, relu, recompute bool) {
	name, args, back := "lrnStep75", "a, na, nratio float32", "lrnBackward"
	if relu {
		name, args, back = "lrnStep75ReLU", "a, na, nratio, slope float32", "lrnBackwardReLU"
	}
	with := "with dyr and yr"
	if recompute {
		name = strings.Replace(name, "75", "75X", 1)
		with = "with dyr and the output yr·pow[i] of the input yr"
	}
	sig := "func(sc, xin, xout, dyr, yr, r, pow, acc, rout, x, dy, powc, dx []float32, " + args + ")"
	doc := "sc[i], r[i] and pow[i] as lrnRatio75 (" + with + "), then dx[i] and acc[i] as " + back + " with rin = r and pow = powc, for i < len(sc)"
	vecFunc(c, isa, name, sig, doc)
	nrConsts(c, isa)
	n := reg.RCX
	ptrs := []struct {
		name string
		r    reg.Register
	}{
		{"sc", reg.RSI}, {"xin", reg.RDI}, {"xout", reg.RDX}, {"dyr", reg.R8}, {"yr", reg.R9}, {"r", reg.R10}, {"pow", reg.R11},
		{"acc", reg.R12}, {"rout", reg.R13}, {"x", reg.R14}, {"dy", reg.R15}, {"powc", reg.RAX}, {"dx", reg.RBX},
	}
	c.Load(c.Param("sc").Len(), n)
	var regs []reg.Register
	for _, p := range ptrs {
		c.Load(c.Param(p.name).Base(), p.r)
		regs = append(regs, p.r)
	}
	sc, xin, xout, dyr, yr, r, pow := regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6]
	acc, rout, x, dy, powc, dx := regs[7], regs[8], regs[9], regs[10], regs[11], regs[12]
	// The constants: 1.0 made from all ones (no memory access).
	ones := isa.vec(14)
	if isa.bytes == 64 {
		c.VPTERNLOGD(operand.U8(0xff), ones, ones, ones)
	} else {
		c.VPCMPEQD(ones, ones, ones)
	}
	c.VPSRLD(operand.U8(25), ones, ones)
	c.VPSLLD(operand.U8(23), ones, ones)
	c.VBROADCASTSS(paramAddr(c, "a"), isa.vec(13))
	c.VBROADCASTSS(paramAddr(c, "na"), isa.vec(12))
	c.VBROADCASTSS(paramAddr(c, "nratio"), isa.vec(15))
	if relu {
		c.VBROADCASTSS(paramAddr(c, "slope"), isa.vec(11))
		c.VXORPS(isa.vec(10), isa.vec(10), isa.vec(10))
	}
	strideAhead(c, isa, 2, n, regs, []reg.Register{xin}, func(u, w int) {
		s, t, ac, d, e := vreg(isa, 5*u, w), vreg(isa, 5*u+1, w), vreg(isa, 5*u+2, w), vreg(isa, 5*u+3, w), vreg(isa, 5*u+4, w)
		a, na, nr, one := vreg(isa, 13, w), vreg(isa, 12, w), vreg(isa, 15, w), vreg(isa, 14, w)
		at := func(p reg.Register) operand.Mem { return operand.Mem{Base: p, Disp: u * w} }
		mul, fma := vop(w, c.VMULPS, c.VMULSS), vop(w, c.VFMADD231PS, c.VFMADD231SS)
		div, add, sub := vop(w, c.VDIVPS, c.VDIVSS), vop(w, c.VADDPS, c.VADDSS), vop(w, c.VSUBPS, c.VSUBSS)
		// The scale of the channel pre ahead.
		load(c, at(sc), s, w)
		load(c, at(xin), t, w)
		mul(t, t, t)
		fma(t, a, s)
		load(c, at(xout), t, w)
		mul(t, t, t)
		fma(t, na, s)
		store(c, s, at(sc), w)
		// pow75 leaves its power 1/(√s·√√s) in dst, using e.
		pow75 := func(dst reg.VecPhysical) { emitPow75(c, isa, w, u, s, e, dst, one) }
		if recompute {
			// Its power, its output yr·pow, its ratio.
			pow75(d)
			store(c, d, at(pow), w)
			load(c, at(yr), t, w)
			mul(d, t, t)
			mul(at(dyr), t, t)
			div(s, t, t)
			store(c, t, at(r), w)
			load(c, at(acc), ac, w)
			add(t, ac, ac)
		} else {
			// Its ratio, entering the window sum, then its power.
			load(c, at(dyr), t, w)
			mul(at(yr), t, t)
			div(s, t, t)
			store(c, t, at(r), w)
			load(c, at(acc), ac, w)
			add(t, ac, ac)
			pow75(s)
			store(c, s, at(pow), w)
		}
		// The current channel's gradient.
		load(c, at(dy), d, w)
		mul(at(powc), d, d)
		mul(at(x), ac, t)
		fma(t, nr, d)
		sub(at(rout), ac, ac)
		store(c, ac, at(acc), w)
		if relu {
			zero, slope := vreg(isa, 10, w), vreg(isa, 11, w)
			mul(slope, d, e)
			switch {
			case w == 4:
				c.VCMPSS(operand.U8(cmpLTOQ), at(x), zero, t)
				c.VBLENDVPS(t, d, e, d)
			case w == 64:
				// AVX-512 compares into a mask register.
				c.VCMPPS(operand.U8(cmpLTOQ), at(x), zero, reg.K2)
				c.VMOVAPS(d, reg.K2, e)
				c.VMOVAPS(e, d)
			default:
				c.VCMPPS(operand.U8(cmpLTOQ), at(x), zero, t)
				c.VBLENDVPS(t, d, e, d)
			}
		}
		store(c, d, at(dx), w)
	}, nil)
	finishNR(c)
}
