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
