package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The streaming kernels write arrays that are not read again soon with
// non-temporal stores (VMOVNTPS), which go to memory without first
// reading the lines into the cache (no read for ownership) and without
// evicting data that is: the memory bandwidth benchmark's stores, and the
// SGD step that writes the update into the gradient's blob from a
// gradient computed into a buffer in the cache (sgdTo). Each kernel first
// handles single floats until the non-temporal destination is aligned to
// a vector, then four vectors at a time, one at a time, and the last
// floats one by one, and ends with SFENCE so that the stores are ordered
// before whatever the caller does next.

func buildStream(c *build.Context) {
	for _, isa := range []vecISA{vec512, vec256} {
		streamFill(c, isa, false)
		streamFill(c, isa, true)
		streamSGDTo(c, isa, true)
		streamSGDTo(c, isa, false)
	}
}

// streamLoop is the element loop of a streaming kernel over n floats at
// the pointers in ptrs, of which nt (in ptrs) is the one the body stores
// to with non-temporal stores: body(u, w) handles the u-th group
// of w bytes (a vector, or one float when w == 4).
func streamLoop(c *build.Context, isa vecISA, n, nt reg.Register, ptrs []reg.Register, body func(u, w int)) {
	const unroll = 4
	vl := isa.bytes / 4
	advance := func(bytes int) {
		for _, p := range ptrs {
			c.ADDQ(operand.U32(bytes), p)
		}
	}
	scalar := func(label string) {
		body(0, 4)
		advance(4)
		c.DECQ(n)
		c.JMP(operand.LabelRef(label))
	}
	c.Label("head")
	c.TESTQ(operand.U32(isa.bytes-1), nt)
	c.JZ(operand.LabelRef("vec4"))
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("done"))
	scalar("head")
	c.Label("vec4")
	c.CMPQ(n, operand.U32(unroll*vl))
	c.JL(operand.LabelRef("vec1"))
	for u := 0; u < unroll; u++ {
		body(u, isa.bytes)
	}
	advance(unroll * isa.bytes)
	c.SUBQ(operand.U32(unroll*vl), n)
	c.JMP(operand.LabelRef("vec4"))
	c.Label("vec1")
	c.CMPQ(n, operand.U32(vl))
	c.JL(operand.LabelRef("scalar"))
	body(0, isa.bytes)
	advance(isa.bytes)
	c.SUBQ(operand.U32(vl), n)
	c.JMP(operand.LabelRef("vec1"))
	c.Label("scalar")
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("done"))
	scalar("scalar")
	c.Label("done")
	c.SFENCE()
	c.VZEROUPPER()
	c.RET()
}

// storeNT stores w bytes of r at m: non-temporally for a vector (m
// aligned), as a plain store for one float.
func storeNT(c *build.Context, r reg.VecPhysical, m operand.Mem, w int) {
	if w == 4 {
		c.VMOVSS(r, m)
	} else {
		c.VMOVNTPS(r, m)
	}
}

// streamFill emits streamFill{AVX512,AVX2} (plain stores) or
// streamFillNT{...} (non-temporal stores): x[i] = v.
func streamFill(c *build.Context, isa vecISA, nt bool) {
	name, how := "streamFill", "plain"
	if nt {
		name, how = "streamFillNT", "non-temporal"
	}
	fn := name + isa.suffix
	c.Function(fn)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(x []float32, v float32)")
	c.Doc(fmt.Sprintf("%s sets x[i] = v for i < len(x) with %s vector stores.", fn, how))
	n, x := reg.RCX, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.VBROADCASTSS(paramAddr(c, "v"), isa.vec(0))
	streamLoop(c, isa, n, x, []reg.Register{x}, func(u, w int) {
		m := operand.Mem{Base: x, Disp: u * w}
		if nt {
			storeNT(c, vreg(isa, 0, w), m, w)
		} else {
			store(c, vreg(isa, 0, w), m, w)
		}
	})
}

// streamSGDTo emits sgdTo{AVX512,AVX2} (withDecay) or sgdToNoDecay{...}:
// the SGD step of vecSGD with the same operations in the same order, but
// the gradient read from g and the update (the new history) written to d
// with non-temporal stores, g left alone:
//
//	t = fma(decay, w, g)            (t = g without decay)
//	h = fma(rate, t, momentum·h)
//	d = h
//	w = w − h
func streamSGDTo(c *build.Context, isa vecISA, withDecay bool) {
	name, doc := "sgdTo", "w, h and d by one step of SGD with momentum from the gradient g: h = rate*(g + decay*w) + momentum*h, d = h (non-temporal stores), w -= h, for i < len(w)"
	if !withDecay {
		name, doc = "sgdToNoDecay", "w, h and d by one step of SGD with momentum without weight decay from the gradient g: h = rate*g + momentum*h, d = h (non-temporal stores), w -= h, for i < len(w)"
	}
	fn := name + isa.suffix
	c.Function(fn)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(w, g, h, d []float32, decay, rate, momentum float32)")
	c.Doc(fmt.Sprintf("%s sets %s.", fn, doc))
	n, w, g, h, d := reg.RCX, reg.RDI, reg.RSI, reg.RDX, reg.R8
	c.Load(c.Param("w").Len(), n)
	c.Load(c.Param("w").Base(), w)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("h").Base(), h)
	c.Load(c.Param("d").Base(), d)
	sgdScalars(c, isa)
	streamLoop(c, isa, n, d, []reg.Register{w, g, h, d}, func(u, bytes int) {
		md := operand.Mem{Base: d, Disp: u * bytes}
		sgdStep(c, isa, u, bytes, withDecay, w, g, h, func(hv reg.VecPhysical) { storeNT(c, hv, md, bytes) })
	})
}
