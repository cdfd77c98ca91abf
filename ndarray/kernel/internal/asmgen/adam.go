package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// vecAdam emits adam{AVX512,AVX2}: one step of Adam in one pass over the
// gradient g and the moments m and v, with adamGo's operations in its
// order, each rounded (multiplications and additions apart, no fused
// multiply-add; VSQRTPS rounds √v as float32(math.Sqrt(float64(v)))
// does, the float64 root having more than twice float32's precision), so
// that the results are the same to the bit:
//
//	m = b1·m + c1·g
//	v = b2·v + c2·(g·g)
//	g = r·(m / (√v + eps))
func vecAdam(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "adam", "func(g, m, v []float32, b1, c1, b2, c2, eps, r float32)",
		"g, m and v by one step of Adam: m = b1*m + c1*g, v = b2*v + c2*g², g = r*(m/(√v+eps)), for i < len(g)")
	n, g, m, v := reg.RCX, reg.RDI, reg.RSI, reg.RDX
	c.Load(c.Param("g").Len(), n)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("m").Base(), m)
	c.Load(c.Param("v").Base(), v)
	for i, name := range []string{"b1", "c1", "b2", "c2", "eps", "r"} {
		c.VBROADCASTSS(paramAddr(c, name), isa.vec(10+i))
	}
	strideUnroll(c, isa, 2, n, []reg.Register{g, m, v}, func(u, w int) {
		x, mv, vv, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w), vreg(isa, 4*u+3, w)
		b1, c1, b2, c2, eps, r := vreg(isa, 10, w), vreg(isa, 11, w), vreg(isa, 12, w), vreg(isa, 13, w), vreg(isa, 14, w), vreg(isa, 15, w)
		mg, mm, mvv := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: m, Disp: u * w}, operand.Mem{Base: v, Disp: u * w}
		scalar := w == 4
		mul := func(a, b, dst reg.VecPhysical) { // dst = b·a
			if scalar {
				c.VMULSS(a, b, dst)
			} else {
				c.VMULPS(a, b, dst)
			}
		}
		add := func(a, b, dst reg.VecPhysical) { // dst = b + a
			if scalar {
				c.VADDSS(a, b, dst)
			} else {
				c.VADDPS(a, b, dst)
			}
		}
		load(c, mg, x, w)
		load(c, mm, mv, w)
		mul(b1, mv, mv) // b1·m
		mul(c1, x, t)   // c1·g
		add(t, mv, mv)
		store(c, mv, mm, w)
		load(c, mvv, vv, w)
		mul(b2, vv, vv) // b2·v
		mul(x, x, t)    // g·g
		mul(c2, t, t)   // c2·(g·g)
		add(t, vv, vv)
		store(c, vv, mvv, w)
		if scalar {
			c.VSQRTSS(vv, vv, t)
			c.VADDSS(eps, t, t)
			c.VDIVSS(t, mv, t) // m / (√v + eps)
		} else {
			c.VSQRTPS(vv, t)
			c.VADDPS(eps, t, t)
			c.VDIVPS(t, mv, t)
		}
		mul(r, t, t)
		store(c, t, mg, w)
	}, nil)
	finish(c)
}

// vecNesterov emits nesterov{AVX512,AVX2}: one step of Nesterov's
// momentum in one pass over the gradient g and the history h, with
// nesterovGo's operations in its order, each rounded:
//
//	x = mom·h + rate·g;  g = (1+mom)·x − mom·h;  h = x
//
// (c = 1+mom, computed by the caller as nesterovGo does).
func vecNesterov(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "nesterov", "func(g, h []float32, mom, c, rate float32)",
		"g and h by one step of Nesterov's momentum: x = mom*h + rate*g, g = c*x - mom*h, h = x, for i < len(g)")
	n, g, h := reg.RCX, reg.RDI, reg.RSI
	c.Load(c.Param("g").Len(), n)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("h").Base(), h)
	for i, name := range []string{"mom", "c", "rate"} {
		c.VBROADCASTSS(paramAddr(c, name), isa.vec(13+i))
	}
	strideUnroll(c, isa, 2, n, []reg.Register{g, h}, func(u, w int) {
		x, prev, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w)
		mom, cc, rate := vreg(isa, 13, w), vreg(isa, 14, w), vreg(isa, 15, w)
		mg, mh := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}
		scalar := w == 4
		op := func(ps, ss func(...operand.Op)) func(a, b, dst reg.VecPhysical) {
			f := ps
			if scalar {
				f = ss
			}
			return func(a, b, dst reg.VecPhysical) { f(a, b, dst) }
		}
		mul := op(func(o ...operand.Op) { c.VMULPS(o[0], o[1], o[2]) }, func(o ...operand.Op) { c.VMULSS(o[0], o[1], o[2]) })
		add := op(func(o ...operand.Op) { c.VADDPS(o[0], o[1], o[2]) }, func(o ...operand.Op) { c.VADDSS(o[0], o[1], o[2]) })
		sub := op(func(o ...operand.Op) { c.VSUBPS(o[0], o[1], o[2]) }, func(o ...operand.Op) { c.VSUBSS(o[0], o[1], o[2]) })
		load(c, mh, prev, w)
		load(c, mg, t, w)
		mul(rate, t, t)    // rate·g
		mul(mom, prev, x)  // mom·h
		add(t, x, x)       // x = mom·h + rate·g
		store(c, x, mh, w) // h = x
		mul(cc, x, t)      // (1+mom)·x
		mul(mom, prev, prev)
		sub(prev, t, t) // (1+mom)·x − mom·h
		store(c, t, mg, w)
	}, nil)
	finish(c)
}

// vecRMSProp emits rmsProp{AVX512,AVX2}: one step of RMSProp in one pass
// over the gradient g and the history h, with rmsPropGo's operations in
// its order, each rounded:
//
//	h = d·h + c·(g·g);  g = rate·(g / (√h + delta))
//
// (c = 1−d, computed by the caller as rmsPropGo does).
func vecRMSProp(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "rmsProp", "func(g, h []float32, d, c, delta, rate float32)",
		"g and h by one step of RMSProp: h = d*h + c*g², g = rate*(g/(√h+delta)), for i < len(g)")
	n, g, h := reg.RCX, reg.RDI, reg.RSI
	c.Load(c.Param("g").Len(), n)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("h").Base(), h)
	for i, name := range []string{"d", "c", "delta", "rate"} {
		c.VBROADCASTSS(paramAddr(c, name), isa.vec(12+i))
	}
	strideUnroll(c, isa, 2, n, []reg.Register{g, h}, func(u, w int) {
		x, hv, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w)
		d, cc, delta, rate := vreg(isa, 12, w), vreg(isa, 13, w), vreg(isa, 14, w), vreg(isa, 15, w)
		mg, mh := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}
		load(c, mg, x, w)
		load(c, mh, hv, w)
		if w == 4 {
			c.VMULSS(d, hv, hv)
			c.VMULSS(x, x, t)
			c.VMULSS(cc, t, t)
			c.VADDSS(t, hv, hv)
			c.VSQRTSS(hv, hv, t)
			c.VADDSS(delta, t, t)
			c.VDIVSS(t, x, t)
			c.VMULSS(rate, t, t)
		} else {
			c.VMULPS(d, hv, hv)
			c.VMULPS(x, x, t)
			c.VMULPS(cc, t, t)
			c.VADDPS(t, hv, hv)
			c.VSQRTPS(hv, t)
			c.VADDPS(delta, t, t)
			c.VDIVPS(t, x, t)
			c.VMULPS(rate, t, t)
		}
		store(c, hv, mh, w)
		store(c, t, mg, w)
	}, nil)
	finish(c)
}

// vecAdaGrad emits adaGrad{AVX512,AVX2}: one step of AdaGrad in one pass,
// with adaGradGo's operations in its order, each rounded:
//
//	h = h + g·g;  g = rate·(g / (√h + delta))
func vecAdaGrad(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "adaGrad", "func(g, h []float32, delta, rate float32)",
		"g and h by one step of AdaGrad: h += g², g = rate*(g/(√h+delta)), for i < len(g)")
	n, g, h := reg.RCX, reg.RDI, reg.RSI
	c.Load(c.Param("g").Len(), n)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("h").Base(), h)
	c.VBROADCASTSS(paramAddr(c, "delta"), isa.vec(14))
	c.VBROADCASTSS(paramAddr(c, "rate"), isa.vec(15))
	strideUnroll(c, isa, 2, n, []reg.Register{g, h}, func(u, w int) {
		x, hv, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w)
		delta, rate := vreg(isa, 14, w), vreg(isa, 15, w)
		mg, mh := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}
		load(c, mg, x, w)
		load(c, mh, hv, w)
		if w == 4 {
			c.VMULSS(x, x, t)
			c.VADDSS(t, hv, hv)
			c.VSQRTSS(hv, hv, t)
			c.VADDSS(delta, t, t)
			c.VDIVSS(t, x, t)
			c.VMULSS(rate, t, t)
		} else {
			c.VMULPS(x, x, t)
			c.VADDPS(t, hv, hv)
			c.VSQRTPS(hv, t)
			c.VADDPS(delta, t, t)
			c.VDIVPS(t, x, t)
			c.VMULPS(rate, t, t)
		}
		store(c, hv, mh, w)
		store(c, t, mg, w)
	}, nil)
	finish(c)
}

// vecAdaDelta emits adaDelta{AVX512,AVX2}: one step of AdaDelta in one
// pass, with adaDeltaGo's operations in its order, each rounded:
//
//	h = rho·h + c·(g·g);  u = g·√((h2 + delta) / (h + delta));
//	h2 = rho·h2 + c·(u·u);  g = rate·u
//
// (c = 1−rho, computed by the caller as adaDeltaGo does).
func vecAdaDelta(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "adaDelta", "func(g, h, h2 []float32, rho, c, delta, rate float32)",
		"g, h and h2 by one step of AdaDelta: h = rho*h + c*g², u = g*√((h2+delta)/(h+delta)), h2 = rho*h2 + c*u², g = rate*u, for i < len(g)")
	n, g, h, h2 := reg.RCX, reg.RDI, reg.RSI, reg.RDX
	c.Load(c.Param("g").Len(), n)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("h").Base(), h)
	c.Load(c.Param("h2").Base(), h2)
	for i, name := range []string{"rho", "c", "delta", "rate"} {
		c.VBROADCASTSS(paramAddr(c, name), isa.vec(12+i))
	}
	strideUnroll(c, isa, 2, n, []reg.Register{g, h, h2}, func(u, w int) {
		x, hv, h2v, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w), vreg(isa, 4*u+3, w)
		rho, cc, delta, rate := vreg(isa, 12, w), vreg(isa, 13, w), vreg(isa, 14, w), vreg(isa, 15, w)
		mg, mh, mh2 := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}, operand.Mem{Base: h2, Disp: u * w}
		s := w == 4
		mul := func(a, b, d reg.VecPhysical) {
			if s {
				c.VMULSS(a, b, d)
			} else {
				c.VMULPS(a, b, d)
			}
		}
		add := func(a, b, d reg.VecPhysical) {
			if s {
				c.VADDSS(a, b, d)
			} else {
				c.VADDPS(a, b, d)
			}
		}
		load(c, mg, x, w)
		load(c, mh, hv, w)
		mul(rho, hv, hv) // rho·h
		mul(x, x, t)     // g·g
		mul(cc, t, t)    // c·(g·g)
		add(t, hv, hv)
		store(c, hv, mh, w)
		load(c, mh2, h2v, w)
		add(delta, h2v, t) // h2 + delta
		add(delta, hv, hv) // h + delta
		if s {
			c.VDIVSS(hv, t, t)
			c.VSQRTSS(t, t, t)
		} else {
			c.VDIVPS(hv, t, t)
			c.VSQRTPS(t, t)
		}
		mul(t, x, x)       // u = g·√(…)
		mul(rho, h2v, h2v) // rho·h2
		mul(x, x, t)       // u·u
		mul(cc, t, t)      // c·(u·u)
		add(t, h2v, h2v)
		store(c, h2v, mh2, w)
		mul(rate, x, x) // rate·u
		store(c, x, mg, w)
	}, nil)
	finish(c)
}
