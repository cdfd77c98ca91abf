package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The vector primitives are generated twice, for 512-bit (AVX-512F) and
// 256-bit (AVX2+FMA) vectors. Each walks n = len(x) elements: four vectors
// per iteration, then one vector at a time, then single floats. The Go side
// checks that every other slice holds at least n elements.

// vecISA is the vector width the primitives are generated for.
type vecISA struct {
	suffix string // function name suffix
	bytes  int
	vec    func(i int) reg.VecPhysical
}

var (
	vec512 = vecISA{suffix: "AVX512", bytes: 64, vec: zmm}
	vec256 = vecISA{suffix: "AVX2", bytes: 32, vec: ymm}
)

func xmm(i int) reg.VecPhysical {
	return []reg.VecPhysical{
		reg.X0, reg.X1, reg.X2, reg.X3, reg.X4, reg.X5, reg.X6, reg.X7,
		reg.X8, reg.X9, reg.X10, reg.X11, reg.X12, reg.X13, reg.X14, reg.X15,
	}[i]
}

func buildVec(c *build.Context) {
	tab := expTable(c)
	for _, isa := range []vecISA{vec512, vec256} {
		vecExp(c, isa, tab)
		vecAxpy(c, isa)
		vecAxpby(c, isa)
		vecSGD(c, isa, true, false)
		vecSGD(c, isa, false, false)
		vecSGD(c, isa, true, true)
		vecSGD(c, isa, false, true)
		vecAdam(c, isa)
		vecNesterov(c, isa)
		vecRMSProp(c, isa, true)
		vecRMSProp(c, isa, false)
		vecAdaDelta(c, isa)
		vecScale(c, isa)
		vecBinary(c, isa, "add", "dst[i] = x[i] + y[i]", c.VADDPS, c.VADDSS)
		vecBinary(c, isa, "mul", "dst[i] = x[i] * y[i]", c.VMULPS, c.VMULSS)
		vecDot(c, isa)
		vecReduce(c, isa, "sum", "the sum of x", c.VADDPS, c.VADDSS)
		vecSumRows(c, isa)
		vecReduce(c, isa, "max", "the largest element of x (len(x) >= 1)", c.VMAXPS, c.VMAXSS)
	}
}

// stride is the element loop of a primitive: body(u, w) handles the u-th
// group of w bytes (a vector, or one float when w == 4) at the pointers in
// ptrs, which then advance past the groups handled. tail, if not nil, runs
// once between the vector loops and the scalar loop; reductions fold their
// vector accumulators into X0 there, because scalar VEX instructions clear
// the upper lanes of their destination.
func stride(c *build.Context, isa vecISA, n reg.Register, ptrs []reg.Register, body func(u, w int), tail func()) {
	strideUnroll(c, isa, 4, n, ptrs, body, tail)
}

// strideUnroll is stride with unroll vectors a step in its first loop.
func strideUnroll(c *build.Context, isa vecISA, unroll int, n reg.Register, ptrs []reg.Register, body func(u, w int), tail func()) {
	strideAhead(c, isa, unroll, n, ptrs, nil, body, tail)
}

// streamAhead is how many bytes ahead of the pointers it reads the
// streaming kernels (strideAhead) prefetch: far enough that a line
// asked for from memory arrives before the loop gets to it.
const streamAhead = 2048

// strideAhead is strideUnroll whose first loop also prefetches (into L1)
// the lines streamAhead bytes ahead of the pointers in ahead, one
// PREFETCHT0 a cache line the step advances: for arrays read once, in
// order, from memory (an LRN's channel entering the window), whose loads
// otherwise waited for their lines.
func strideAhead(c *build.Context, isa vecISA, unroll int, n reg.Register, ptrs, ahead []reg.Register, body func(u, w int), tail func()) {
	loop := fmt.Sprintf("vec%d", unroll)
	vl := isa.bytes / 4 // floats per vector
	advance := func(bytes int) {
		for _, p := range ptrs {
			c.ADDQ(operand.U32(bytes), p)
		}
	}
	c.CMPQ(n, operand.U32(unroll*vl))
	c.JL(operand.LabelRef("vec1"))
	c.Label(loop)
	for _, p := range ahead {
		for off := 0; off < unroll*isa.bytes; off += 64 {
			c.PREFETCHT0(operand.Mem{Base: p, Disp: streamAhead + off})
		}
	}
	for u := 0; u < unroll; u++ {
		body(u, isa.bytes)
	}
	advance(unroll * isa.bytes)
	c.SUBQ(operand.U32(unroll*vl), n)
	c.CMPQ(n, operand.U32(unroll*vl))
	c.JGE(operand.LabelRef(loop))
	c.Label("vec1")
	c.CMPQ(n, operand.U32(vl))
	c.JL(operand.LabelRef("tail"))
	body(0, isa.bytes)
	advance(isa.bytes)
	c.SUBQ(operand.U32(vl), n)
	c.JMP(operand.LabelRef("vec1"))
	c.Label("tail")
	if tail != nil {
		tail()
	}
	c.Label("scalar")
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("done"))
	body(0, 4)
	advance(4)
	c.DECQ(n)
	c.JMP(operand.LabelRef("scalar"))
	c.Label("done")
}

// vreg returns vector register i at width w: the full vector, or its low
// xmm part for scalar work.
func vreg(isa vecISA, i, w int) reg.VecPhysical {
	if w == 4 {
		return xmm(i)
	}
	return isa.vec(i)
}

// load moves w bytes at m into r.
func load(c *build.Context, m operand.Mem, r reg.VecPhysical, w int) {
	if w == 4 {
		c.VMOVSS(m, r)
	} else {
		c.VMOVUPS(m, r)
	}
}

// store moves w bytes of r to m.
func store(c *build.Context, r reg.VecPhysical, m operand.Mem, w int) {
	if w == 4 {
		c.VMOVSS(r, m)
	} else {
		c.VMOVUPS(r, m)
	}
}

func vecFunc(c *build.Context, isa vecISA, name, sig, doc string) {
	fn := fmt.Sprintf("%s%s", name, isa.suffix)
	c.Function(fn)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr(sig)
	c.Doc(fmt.Sprintf("%s sets %s.", fn, doc))
}

func finish(c *build.Context) {
	c.VZEROUPPER()
	c.RET()
}

func vecAxpy(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "axpy", "func(alpha float32, x, y []float32)", "y[i] += alpha*x[i] for i < len(x)")
	n, x, y := reg.RCX, reg.RSI, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("y").Base(), y)
	alpha := isa.vec(15)
	c.VBROADCASTSS(paramAddr(c, "alpha"), alpha)
	stride(c, isa, n, []reg.Register{x, y}, func(u, w int) {
		t := vreg(isa, u, w)
		load(c, operand.Mem{Base: y, Disp: u * w}, t, w)
		if w == 4 {
			c.VFMADD231SS(operand.Mem{Base: x, Disp: u * w}, xmm(15), t)
		} else {
			c.VFMADD231PS(operand.Mem{Base: x, Disp: u * w}, alpha, t)
		}
		store(c, t, operand.Mem{Base: y, Disp: u * w}, w)
	}, nil)
	finish(c)
}

func vecAxpby(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "axpby", "func(alpha float32, x []float32, beta float32, y []float32)", "y[i] = alpha*x[i] + beta*y[i] for i < len(x)")
	n, x, y := reg.RCX, reg.RSI, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("y").Base(), y)
	alpha, beta := isa.vec(14), isa.vec(15)
	c.VBROADCASTSS(paramAddr(c, "alpha"), alpha)
	c.VBROADCASTSS(paramAddr(c, "beta"), beta)
	stride(c, isa, n, []reg.Register{x, y}, func(u, w int) {
		t := vreg(isa, u, w)
		a, b := vreg(isa, 14, w), vreg(isa, 15, w)
		if w == 4 {
			load(c, operand.Mem{Base: y, Disp: u * w}, t, w)
			c.VMULSS(b, t, t)
			c.VFMADD231SS(operand.Mem{Base: x, Disp: u * w}, a, t)
		} else {
			c.VMULPS(operand.Mem{Base: y, Disp: u * w}, b, t)
			c.VFMADD231PS(operand.Mem{Base: x, Disp: u * w}, a, t)
		}
		store(c, t, operand.Mem{Base: y, Disp: u * w}, w)
	}, nil)
	finish(c)
}

// vecSGD emits sgd{AVX512,AVX2} (withDecay) or sgdNoDecay{...}: one step
// of SGD with momentum in one pass, with the operations of the passes it
// replaces (axpy for the decay, axpby for the momentum, a copy, axpy for
// the update), so that results are the same to the bit:
//
//	d = fma(decay, w, g)            (d = g without decay)
//	h = fma(rate, d, momentum·h)
//	g = h
//	w = w − h
//
// With ahead, sgdAhead{...} and sgdAheadNoDecay{...} also take a byte
// offset ahead from h and prefetch into L1 the line that far from each
// line of h they read, one PREFETCHT0 a line: the history of the next
// piece of the weights a caller updates (the next row of a tile of a
// fully connected layer's weights, a row of 4 KB, whose lines the
// hardware prefetchers would only start to fetch once its first loads
// missed).
func vecSGD(c *build.Context, isa vecISA, withDecay, ahead bool) {
	name, doc := "sgd", "w, g and h by one step of SGD with momentum: h = rate*(g + decay*w) + momentum*h, g = h, w -= h, for i < len(w)"
	if !withDecay {
		name, doc = "sgdNoDecay", "w, g and h by one step of SGD with momentum without weight decay: h = rate*g + momentum*h, g = h, w -= h, for i < len(w)"
	}
	sig := "func(w, g, h []float32, decay, rate, momentum float32)"
	if ahead {
		name = strings.Replace(name, "sgd", "sgdAhead", 1)
		doc += ", prefetching the line ahead bytes past each line of h"
		sig = "func(w, g, h []float32, decay, rate, momentum float32, ahead int)"
	}
	vecFunc(c, isa, name, sig, doc)
	n, w, g, h, off := reg.RCX, reg.RDI, reg.RSI, reg.RDX, reg.R8
	c.Load(c.Param("w").Len(), n)
	c.Load(c.Param("w").Base(), w)
	c.Load(c.Param("g").Base(), g)
	c.Load(c.Param("h").Base(), h)
	if ahead {
		c.Load(c.Param("ahead"), off)
	}
	sgdScalars(c, isa)
	stride(c, isa, n, []reg.Register{w, g, h}, func(u, bytes int) {
		if ahead && bytes == isa.bytes && u*bytes%64 == 0 {
			c.PREFETCHT0(operand.Mem{Base: h, Index: off, Scale: 1, Disp: u * bytes})
		}
		mg := operand.Mem{Base: g, Disp: u * bytes}
		sgdStep(c, isa, u, bytes, withDecay, w, g, h, func(hv reg.VecPhysical) { store(c, hv, mg, bytes) })
	}, nil)
	finish(c)
}

// sgdScalars broadcasts the arguments decay, rate and momentum into the
// vectors 13, 14 and 15 that sgdStep reads.
func sgdScalars(c *build.Context, isa vecISA) {
	c.VBROADCASTSS(paramAddr(c, "decay"), isa.vec(13))
	c.VBROADCASTSS(paramAddr(c, "rate"), isa.vec(14))
	c.VBROADCASTSS(paramAddr(c, "momentum"), isa.vec(15))
}

// sgdStep emits one step of SGD with momentum over the bytes at offset
// u·bytes of w, g and h: h = fma(rate, fma(decay, w, g), momentum·h)
// (g in place of the inner fma without decay), stored to h, then put(h),
// then w −= h stored to w.
func sgdStep(c *build.Context, isa vecISA, u, bytes int, withDecay bool, w, g, h reg.Register, put func(hv reg.VecPhysical)) {
	gv, wv, hv := vreg(isa, u, bytes), vreg(isa, 4+u, bytes), vreg(isa, 8+u, bytes)
	dec, rate, mom := vreg(isa, 13, bytes), vreg(isa, 14, bytes), vreg(isa, 15, bytes)
	mg, mw, mh := operand.Mem{Base: g, Disp: u * bytes}, operand.Mem{Base: w, Disp: u * bytes}, operand.Mem{Base: h, Disp: u * bytes}
	load(c, mg, gv, bytes)
	load(c, mw, wv, bytes)
	load(c, mh, hv, bytes)
	if bytes == 4 {
		if withDecay {
			c.VFMADD231SS(wv, dec, gv)
		}
		c.VMULSS(mom, hv, hv)
		c.VFMADD231SS(gv, rate, hv)
		c.VSUBSS(hv, wv, wv)
	} else {
		if withDecay {
			c.VFMADD231PS(wv, dec, gv)
		}
		c.VMULPS(mom, hv, hv)
		c.VFMADD231PS(gv, rate, hv)
		c.VSUBPS(hv, wv, wv)
	}
	store(c, hv, mh, bytes)
	put(hv)
	store(c, wv, mw, bytes)
}

func vecScale(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "scale", "func(alpha float32, x []float32)", "x[i] *= alpha")
	n, x := reg.RCX, reg.RSI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	alpha := isa.vec(15)
	c.VBROADCASTSS(paramAddr(c, "alpha"), alpha)
	stride(c, isa, n, []reg.Register{x}, func(u, w int) {
		t := vreg(isa, u, w)
		m := operand.Mem{Base: x, Disp: u * w}
		if w == 4 {
			c.VMULSS(m, xmm(15), t)
		} else {
			c.VMULPS(m, alpha, t)
		}
		store(c, t, m, w)
	}, nil)
	finish(c)
}

func vecBinary(c *build.Context, isa vecISA, name, doc string, packed, scalar func(...operand.Op)) {
	vecFunc(c, isa, name, "func(dst, x, y []float32)", doc+" for i < len(x)")
	n, x, y, d := reg.RCX, reg.RSI, reg.RDI, reg.RDX
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("y").Base(), y)
	c.Load(c.Param("dst").Base(), d)
	stride(c, isa, n, []reg.Register{x, y, d}, func(u, w int) {
		t := vreg(isa, u, w)
		load(c, operand.Mem{Base: x, Disp: u * w}, t, w)
		if w == 4 {
			s := xmm(u + 4)
			c.VMOVSS(operand.Mem{Base: y, Disp: u * w}, s)
			scalar(s, t, t)
		} else {
			packed(operand.Mem{Base: y, Disp: u * w}, t, t)
		}
		store(c, t, operand.Mem{Base: d, Disp: u * w}, w)
	}, nil)
	finish(c)
}

// hreduce folds the vector in register 0 into its first lane with op,
// using register 1 as scratch.
func hreduce(c *build.Context, isa vecISA, op func(...operand.Op)) {
	if isa.bytes == 64 {
		c.VEXTRACTF64X4(operand.U8(1), reg.Z0, reg.Y1)
		op(reg.Y1, reg.Y0, reg.Y0)
	}
	c.VEXTRACTF128(operand.U8(1), reg.Y0, reg.X1)
	op(reg.X1, reg.X0, reg.X0)
	c.VMOVHLPS(reg.X0, reg.X0, reg.X1)
	op(reg.X1, reg.X0, reg.X0)
	c.VMOVSHDUP(reg.X0, reg.X1)
	op(reg.X1, reg.X0, reg.X0)
}

func vecDot(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "dot", "func(x, y []float32) float32", "the return value to the sum of x[i]*y[i] for i < len(x)")
	n, x, y := reg.RCX, reg.RSI, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("y").Base(), y)
	for u := 0; u < 4; u++ {
		r := isa.vec(u)
		c.VXORPS(r.AsY(), r.AsY(), r.AsY()) // clears the whole register
	}
	stride(c, isa, n, []reg.Register{x, y}, func(u, w int) {
		t := vreg(isa, u+4, w)
		load(c, operand.Mem{Base: x, Disp: u * w}, t, w)
		if w == 4 {
			c.VFMADD231SS(operand.Mem{Base: y, Disp: u * w}, t, reg.X0)
		} else {
			c.VFMADD231PS(operand.Mem{Base: y, Disp: u * w}, t, isa.vec(u))
		}
	}, func() {
		combine(c, isa, c.VADDPS)
		hreduce(c, isa, c.VADDPS)
	})
	c.Store(reg.X0, c.ReturnIndex(0))
	finish(c)
}

// combine folds accumulators 1..3 into accumulator 0.
func combine(c *build.Context, isa vecISA, op func(...operand.Op)) {
	op(isa.vec(1), isa.vec(0), isa.vec(0))
	op(isa.vec(3), isa.vec(2), isa.vec(2))
	op(isa.vec(2), isa.vec(0), isa.vec(0))
}

func vecReduce(c *build.Context, isa vecISA, name, doc string, packed, scalar func(...operand.Op)) {
	vecFunc(c, isa, name, "func(x []float32) float32", "the return value to "+doc)
	n, x := reg.RCX, reg.RSI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	if name == "max" {
		// Start every lane at x[0]: max ignores repeats of an element.
		for u := 0; u < 4; u++ {
			c.VBROADCASTSS(operand.Mem{Base: x}, isa.vec(u))
		}
	} else {
		for u := 0; u < 4; u++ {
			r := isa.vec(u)
			c.VXORPS(r.AsY(), r.AsY(), r.AsY())
		}
	}
	stride(c, isa, n, []reg.Register{x}, func(u, w int) {
		if w == 4 {
			scalar(operand.Mem{Base: x, Disp: u * w}, reg.X0, reg.X0)
		} else {
			packed(operand.Mem{Base: x, Disp: u * w}, isa.vec(u), isa.vec(u))
		}
	}, func() {
		combine(c, isa, packed)
		hreduce(c, isa, packed)
	})
	c.Store(reg.X0, c.ReturnIndex(0))
	finish(c)
}

// vecSumRows emits sumRows: for each of len(dst) rows of n floats, one
// after the other in x, dst[r] += the row's sum, each sum as sum (vecReduce)
// computes it, so that a row costs no call: the rows' chains of additions
// overlap in the out-of-order core.
func vecSumRows(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "sumRows", "func(dst, x []float32, n int)", "dst[r] += the sum of x[r*n:(r+1)*n] (as sum"+isa.suffix+" adds it) for r < len(dst)")
	rows, dst, x, n, count := reg.R8, reg.RDI, reg.RSI, reg.R9, reg.RCX
	c.Load(c.Param("dst").Len(), rows)
	c.Load(c.Param("dst").Base(), dst)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("n"), n)
	c.TESTQ(rows, rows)
	c.JZ(operand.LabelRef("end"))
	c.Label("row")
	c.MOVQ(n, count)
	for u := 0; u < 4; u++ {
		r := isa.vec(u)
		c.VXORPS(r.AsY(), r.AsY(), r.AsY())
	}
	stride(c, isa, count, []reg.Register{x}, func(u, w int) {
		if w == 4 {
			c.VADDSS(operand.Mem{Base: x, Disp: u * w}, reg.X0, reg.X0)
		} else {
			c.VADDPS(operand.Mem{Base: x, Disp: u * w}, isa.vec(u), isa.vec(u))
		}
	}, func() {
		combine(c, isa, c.VADDPS)
		hreduce(c, isa, c.VADDPS)
	})
	// dst[r] + sum, dst[r] the first operand as in Go's dst[r] += s.
	c.VMOVSS(operand.Mem{Base: dst}, reg.X1)
	c.VADDSS(reg.X0, reg.X1, reg.X1)
	c.VMOVSS(reg.X1, operand.Mem{Base: dst})
	c.ADDQ(operand.U8(4), dst)
	c.DECQ(rows)
	c.JNZ(operand.LabelRef("row"))
	c.Label("end")
	finish(c)
}

// The exponential follows Cephes' expf: clamp x to [-104, 89], where exp
// underflows to 0 and overflows to +Inf, split x = n*ln2 + r with |r| <=
// ln2/2 (ln2 in two parts, so that r is exact), approximate exp(r) by a
// degree-7 polynomial and scale by 2^n. AVX-512 scales with VSCALEFPS;
// AVX2 multiplies by 2^(n/2) and 2^(n-n/2), each a normal float, so that
// overflow, denormal results and underflow come out right. NaN propagates.
var expConsts = []float32{
	89,                        // hi
	-104,                      // lo
	1.4426950408889634,        // log2(e)
	0.693359375,               // ln2, high part
	-2.12194440e-4,            // ln2, low part
	1.9875691500e-4,           // polynomial, highest degree first
	1.3981999507e-3,           //
	8.3334519073e-3,           //
	4.1665795894e-2,           //
	1.6666665459e-1,           //
	5.0000001201e-1,           //
	1,                         // one
	math.Float32frombits(127), // exponent bias, as an int32
}

// Indexes into expConsts.
const (
	expHi    = 0
	expLo    = 1
	expLog2e = 2
	expC1    = 3
	expC2    = 4
	expP0    = 5
	expP5    = 10
	expOne   = 11
	expBias  = 12
)

// expTable emits the constants, each repeated over 8 lanes, so that AVX2
// can use them as memory operands.
func expTable(c *build.Context) operand.Mem {
	tab := c.StaticGlobal("expConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i, v := range expConsts {
		for l := 0; l < 8; l++ {
			c.AddDatum(32*i+4*l, operand.U32(math.Float32bits(v)))
		}
	}
	return tab
}

func vecExp(c *build.Context, isa vecISA, tab operand.Mem) {
	fn := "exp" + isa.suffix
	c.Function(fn)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, x []float32)")
	c.Doc(fmt.Sprintf("%s sets dst[i] = exp(x[i]) for i < len(x) rounded down to a multiple of %d.", fn, isa.bytes/4))
	n, x, d := reg.RCX, reg.RSI, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dst").Base(), d)
	c.SHRQ(operand.U8(bitsOf(isa.bytes/4)), n)
	c.JZ(operand.LabelRef("done"))
	konst := func(i int) operand.Mem { return tab.Offset(32 * i) }

	if isa.bytes == 64 {
		k := func(i int) reg.VecPhysical { return zmm(16 + i) }
		for i := range expConsts[:expBias] {
			c.VBROADCASTSS(konst(i), k(i))
		}
		c.Label("loop")
		c.VMOVUPS(operand.Mem{Base: x}, reg.Z0)
		c.VMINPS(reg.Z0, k(expHi), reg.Z0) // min(hi, x); x if NaN
		c.VMAXPS(reg.Z0, k(expLo), reg.Z0)
		c.VMULPS(k(expLog2e), reg.Z0, reg.Z1)
		c.VRNDSCALEPS(operand.U8(0), reg.Z1, reg.Z1) // n = round(x*log2(e))
		c.VMOVAPS(reg.Z0, reg.Z2)
		c.VFNMADD231PS(reg.Z1, k(expC1), reg.Z2) // r = x - n*ln2
		c.VFNMADD231PS(reg.Z1, k(expC2), reg.Z2)
		c.VMOVAPS(k(expP0), reg.Z3)
		for i := expP0 + 1; i <= expP5; i++ {
			c.VFMADD213PS(k(i), reg.Z2, reg.Z3) // p = p*r + P[i]
		}
		c.VMULPS(reg.Z2, reg.Z2, reg.Z4)
		c.VFMADD213PS(reg.Z2, reg.Z4, reg.Z3) // p*r² + r
		c.VADDPS(k(expOne), reg.Z3, reg.Z3)
		c.VSCALEFPS(reg.Z1, reg.Z3, reg.Z3) // * 2^n
		c.VMOVUPS(reg.Z3, operand.Mem{Base: d})
	} else {
		y := ymm
		c.Label("loop")
		c.VMOVUPS(operand.Mem{Base: x}, y(0))
		c.VMOVUPS(konst(expHi), y(1))
		c.VMINPS(y(0), y(1), y(0)) // min(hi, x); x if NaN
		c.VMOVUPS(konst(expLo), y(1))
		c.VMAXPS(y(0), y(1), y(0))
		c.VMULPS(konst(expLog2e), y(0), y(1))
		c.VROUNDPS(operand.U8(0), y(1), y(1)) // n = round(x*log2(e))
		c.VMOVAPS(y(0), y(2))
		c.VFNMADD231PS(konst(expC1), y(1), y(2)) // r = x - n*ln2
		c.VFNMADD231PS(konst(expC2), y(1), y(2))
		c.VMOVUPS(konst(expP0), y(3))
		for i := expP0 + 1; i <= expP5; i++ {
			c.VFMADD213PS(konst(i), y(2), y(3)) // p = p*r + P[i]
		}
		c.VMULPS(y(2), y(2), y(4))
		c.VFMADD213PS(y(2), y(4), y(3)) // p*r² + r
		c.VADDPS(konst(expOne), y(3), y(3))
		// 2^n = 2^n1 * 2^n2 with n1 = n>>1, n2 = n-n1.
		c.VCVTPS2DQ(y(1), y(1))
		c.VPSRAD(operand.U8(1), y(1), y(4))
		c.VPSUBD(y(4), y(1), y(1))
		for _, r := range []reg.VecPhysical{y(1), y(4)} {
			c.VPADDD(konst(expBias), r, r)
			c.VPSLLD(operand.U8(23), r, r)
			c.VMULPS(r, y(3), y(3))
		}
		c.VMOVUPS(y(3), operand.Mem{Base: d})
	}
	c.ADDQ(operand.U8(int(isa.bytes)), x)
	c.ADDQ(operand.U8(int(isa.bytes)), d)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	finish(c)
}

// bitsOf returns log2(v) for a power of two v.
func bitsOf(v int) int {
	b := 0
	for v > 1 {
		v >>= 1
		b++
	}
	return b
}
