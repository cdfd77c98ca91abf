package main

import (
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// fops emits the float operations of the solver rules' kernels on whole
// vectors or, for the tails, on single floats (scalar); each names its
// operands as the Go assembler orders them: dst = b op a.
type fops struct {
	c      *build.Context
	scalar bool
}

func (o fops) mul(a, b, dst reg.VecPhysical) {
	if o.scalar {
		o.c.VMULSS(a, b, dst)
	} else {
		o.c.VMULPS(a, b, dst)
	}
}

func (o fops) add(a, b, dst reg.VecPhysical) {
	if o.scalar {
		o.c.VADDSS(a, b, dst)
	} else {
		o.c.VADDPS(a, b, dst)
	}
}

func (o fops) sub(a, b, dst reg.VecPhysical) {
	if o.scalar {
		o.c.VSUBSS(a, b, dst)
	} else {
		o.c.VSUBPS(a, b, dst)
	}
}

// div sets dst = b / a.
func (o fops) div(a, b, dst reg.VecPhysical) {
	if o.scalar {
		o.c.VDIVSS(a, b, dst)
	} else {
		o.c.VDIVPS(a, b, dst)
	}
}

// sqrt sets dst = √a.
func (o fops) sqrt(a, dst reg.VecPhysical) {
	if o.scalar {
		o.c.VSQRTSS(a, a, dst)
	} else {
		o.c.VSQRTPS(a, dst)
	}
}

// ruleKernel emits a solver rule's kernel name{AVX512,AVX2} over the
// slices of sig (the first three, or as many as ptrs holds, loaded into
// ptrs), the scalars in names broadcast into the vectors from 16 −
// len(names) on, and body for each vector or float at offset u·w.
func ruleKernel(c *build.Context, isa vecISA, name, sig, doc string, ptrs []reg.Register, slices, names []string, body func(o fops, u, w int, consts []reg.VecPhysical)) {
	vecFunc(c, isa, name, sig, doc)
	n := reg.RCX
	c.Load(c.Param(slices[0]).Len(), n)
	for i, s := range slices {
		c.Load(c.Param(s).Base(), ptrs[i])
	}
	first := 16 - len(names)
	for i, nm := range names {
		c.VBROADCASTSS(paramAddr(c, nm), isa.vec(first+i))
	}
	strideUnroll(c, isa, 2, n, ptrs, func(u, w int) {
		consts := make([]reg.VecPhysical, len(names))
		for i := range consts {
			consts[i] = vreg(isa, first+i, w)
		}
		body(fops{c, w == 4}, u, w, consts)
	}, nil)
	finish(c)
}

// The solver rules' kernels: each a step of the rule in one pass, with
// the Go loop's operations in its order, each rounded (multiplications
// and additions apart, no fused multiply-add; VSQRTPS rounds √x as
// float32(math.Sqrt(float64(x))) does, the float64 root having more than
// twice float32's precision), so that the results are the same to the
// bit. c, c1 and c2 are 1−b, 1+mom, … as the callers compute them.

// vecAdam emits adam{AVX512,AVX2}:
//
//	m = b1·m + c1·g;  v = b2·v + c2·(g·g);  g = r·(m / (√v + eps))
func vecAdam(c *build.Context, isa vecISA) {
	g, m, v := reg.RDI, reg.RSI, reg.RDX
	ruleKernel(c, isa, "adam", "func(g, m, v []float32, b1, c1, b2, c2, eps, r float32)",
		"g, m and v by one step of Adam: m = b1*m + c1*g, v = b2*v + c2*g², g = r*(m/(√v+eps)), for i < len(g)",
		[]reg.Register{g, m, v}, []string{"g", "m", "v"}, []string{"b1", "c1", "b2", "c2", "eps", "r"},
		func(o fops, u, w int, k []reg.VecPhysical) {
			b1, c1, b2, c2, eps, r := k[0], k[1], k[2], k[3], k[4], k[5]
			x, mv, vv, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w), vreg(isa, 4*u+3, w)
			mg, mm, mvv := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: m, Disp: u * w}, operand.Mem{Base: v, Disp: u * w}
			load(c, mg, x, w)
			load(c, mm, mv, w)
			o.mul(b1, mv, mv) // b1·m
			o.mul(c1, x, t)   // c1·g
			o.add(t, mv, mv)
			store(c, mv, mm, w)
			load(c, mvv, vv, w)
			o.mul(b2, vv, vv) // b2·v
			o.mul(x, x, t)    // g·g
			o.mul(c2, t, t)   // c2·(g·g)
			o.add(t, vv, vv)
			store(c, vv, mvv, w)
			o.sqrt(vv, t)
			o.add(eps, t, t)
			o.div(t, mv, t) // m / (√v + eps)
			o.mul(r, t, t)
			store(c, t, mg, w)
		})
}

// vecNesterov emits nesterov{AVX512,AVX2}:
//
//	x = mom·h + rate·g;  g = c·x − mom·h;  h = x
func vecNesterov(c *build.Context, isa vecISA) {
	g, h := reg.RDI, reg.RSI
	ruleKernel(c, isa, "nesterov", "func(g, h []float32, mom, c, rate float32)",
		"g and h by one step of Nesterov's momentum: x = mom*h + rate*g, g = c*x - mom*h, h = x, for i < len(g)",
		[]reg.Register{g, h}, []string{"g", "h"}, []string{"mom", "c", "rate"},
		func(o fops, u, w int, k []reg.VecPhysical) {
			mom, cc, rate := k[0], k[1], k[2]
			x, prev, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w)
			mg, mh := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}
			load(c, mh, prev, w)
			load(c, mg, t, w)
			o.mul(rate, t, t)   // rate·g
			o.mul(mom, prev, x) // mom·h
			o.add(t, x, x)      // x = mom·h + rate·g
			store(c, x, mh, w)  // h = x
			o.mul(cc, x, t)     // c·x
			o.mul(mom, prev, prev)
			o.sub(prev, t, t) // c·x − mom·h
			store(c, t, mg, w)
		})
}

// vecRMSProp emits rmsProp{AVX512,AVX2} (a = d) and adaGrad{AVX512,AVX2}
// (no decay):
//
//	h = d·h + c·(g·g)  or  h = h + g·g;  g = rate·(g / (√h + delta))
func vecRMSProp(c *build.Context, isa vecISA, decay bool) {
	g, h := reg.RDI, reg.RSI
	name, sig, doc, names := "rmsProp", "func(g, h []float32, d, c, delta, rate float32)",
		"g and h by one step of RMSProp: h = d*h + c*g², g = rate*(g/(√h+delta)), for i < len(g)", []string{"d", "c", "delta", "rate"}
	if !decay {
		name, sig, doc, names = "adaGrad", "func(g, h []float32, delta, rate float32)",
			"g and h by one step of AdaGrad: h += g², g = rate*(g/(√h+delta)), for i < len(g)", []string{"delta", "rate"}
	}
	ruleKernel(c, isa, name, sig, doc, []reg.Register{g, h}, []string{"g", "h"}, names,
		func(o fops, u, w int, k []reg.VecPhysical) {
			delta, rate := k[len(k)-2], k[len(k)-1]
			x, hv, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w)
			mg, mh := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}
			load(c, mg, x, w)
			load(c, mh, hv, w)
			if decay {
				o.mul(k[0], hv, hv) // d·h
				o.mul(x, x, t)
				o.mul(k[1], t, t) // c·(g·g)
			} else {
				o.mul(x, x, t)
			}
			o.add(t, hv, hv)
			o.sqrt(hv, t)
			o.add(delta, t, t)
			o.div(t, x, t)
			o.mul(rate, t, t)
			store(c, hv, mh, w)
			store(c, t, mg, w)
		})
}

// vecAdaDelta emits adaDelta{AVX512,AVX2}:
//
//	h = rho·h + c·(g·g);  u = g·√((h2 + delta) / (h + delta));
//	h2 = rho·h2 + c·(u·u);  g = rate·u
func vecAdaDelta(c *build.Context, isa vecISA) {
	g, h, h2 := reg.RDI, reg.RSI, reg.RDX
	ruleKernel(c, isa, "adaDelta", "func(g, h, h2 []float32, rho, c, delta, rate float32)",
		"g, h and h2 by one step of AdaDelta: h = rho*h + c*g², u = g*√((h2+delta)/(h+delta)), h2 = rho*h2 + c*u², g = rate*u, for i < len(g)",
		[]reg.Register{g, h, h2}, []string{"g", "h", "h2"}, []string{"rho", "c", "delta", "rate"},
		func(o fops, u, w int, k []reg.VecPhysical) {
			rho, cc, delta, rate := k[0], k[1], k[2], k[3]
			x, hv, h2v, t := vreg(isa, 4*u, w), vreg(isa, 4*u+1, w), vreg(isa, 4*u+2, w), vreg(isa, 4*u+3, w)
			mg, mh, mh2 := operand.Mem{Base: g, Disp: u * w}, operand.Mem{Base: h, Disp: u * w}, operand.Mem{Base: h2, Disp: u * w}
			load(c, mg, x, w)
			load(c, mh, hv, w)
			o.mul(rho, hv, hv) // rho·h
			o.mul(x, x, t)     // g·g
			o.mul(cc, t, t)    // c·(g·g)
			o.add(t, hv, hv)
			store(c, hv, mh, w)
			load(c, mh2, h2v, w)
			o.add(delta, h2v, t) // h2 + delta
			o.add(delta, hv, hv) // h + delta
			o.div(hv, t, t)
			o.sqrt(t, t)
			o.mul(t, x, x)       // u = g·√(…)
			o.mul(rho, h2v, h2v) // rho·h2
			o.mul(x, x, t)       // u·u
			o.mul(cc, t, t)      // c·(u·u)
			o.add(t, h2v, h2v)
			store(c, h2v, mh2, w)
			o.mul(rate, x, x) // rate·u
			store(c, x, mg, w)
		})
}
