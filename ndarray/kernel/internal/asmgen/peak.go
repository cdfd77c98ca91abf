package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// peakChains is how many independent multiply-add chains the peak probes
// keep in flight: more than the FMA units' latency times their number on
// current cores (4 cycles × 2 units), so that the units, not the chains'
// latency, limit the rate.
const peakChains = 12

// buildPeak generates the FMA peak probes, one per vector width: n
// iterations of peakChains vector multiply-adds (acc = acc·½ + 1, which
// stays near 2 and never meets a denormal), touching no memory, so that
// they run at the rate the core's FMA units allow.
func buildPeak(c *build.Context) {
	tab := c.StaticGlobal("peakConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	c.AddDatum(0, operand.U32(math.Float32bits(0.5)))
	c.AddDatum(4, operand.U32(math.Float32bits(1)))
	for _, isa := range []vecISA{vec512, vec256} {
		fn := "fmaPeak" + isa.suffix
		c.Function(fn)
		c.Attributes(attr.NOSPLIT)
		c.SignatureExpr("func(n int)")
		c.Doc(fmt.Sprintf("%s runs n iterations of %d independent %d-bit vector multiply-adds (%d float32 FLOPs each).",
			fn, peakChains, isa.bytes*8, peakChains*2*isa.bytes/4))
		peakLoop(c, isa, tab, peakChains, 14, nil, func(i int, one, half reg.VecPhysical) {
			c.VFMADD213PS(one, half, isa.vec(i))
		})
	}
	buildPeakLoads(c, tab)
}

// peakLoadChains is how many multiply-add chains the load probes keep in
// flight: twice peakChains, so that a probe can place up to one load
// beside every multiply-add.
const peakLoadChains = 24

// peakLoadCounts are the vector loads per iteration of the load probes
// whose loads go to registers no multiply-add reads.
var peakLoadCounts = []int{0, 4, 8, 12, 24}

// buildPeakLoads generates the AVX-512 load probes: the peak probe's
// multiply-adds (peakLoadChains chains) with vector loads from the first
// level cache beside them, to measure what the loads that kernels feed
// their multiply-adds with cost the FMA units on a core:
//
//	fmaLoadsAVX512xK   K loads of 64 bytes an iteration, spread evenly
//	                   among the multiply-adds, into registers no
//	                   multiply-add reads
//	fmaMemAVX512       each multiply-add adds a vector of memory (64
//	                   bytes) in place of the constant
//	fmaBcstAVX512      each multiply-add adds a float of memory
//	                   broadcast to the lanes
//
// p points at peakLoadChains vectors of ones (the memory operands keep
// acc = acc·½ + 1 as the peak probe's).
func buildPeakLoads(c *build.Context, tab operand.Mem) {
	isa := vec512
	p := reg.RAX
	body := func(name, doc string, op func(i int, one, half reg.VecPhysical, p reg.Register)) {
		c.Function(name)
		c.Attributes(attr.NOSPLIT)
		c.SignatureExpr("func(n int, p *float32)")
		c.Doc(doc)
		peakLoop(c, isa, tab, peakLoadChains, 24, p, func(i int, one, half reg.VecPhysical) { op(i, one, half, p) })
	}
	for _, k := range peakLoadCounts {
		body(fmt.Sprintf("fmaLoadsAVX512x%d", k),
			fmt.Sprintf("fmaLoadsAVX512x%d runs n iterations of %d independent 512-bit multiply-adds and %d vector loads from p into registers they do not read.", k, peakLoadChains, k),
			func(i int, one, half reg.VecPhysical, p reg.Register) {
				c.VFMADD213PS(one, half, isa.vec(i))
				// Load j goes after multiply-add j·chains/k.
				for j := range k {
					if j*peakLoadChains/k == i {
						c.VMOVUPS(operand.Mem{Base: p, Disp: j % peakLoadChains * isa.bytes}, isa.vec(26+j%6))
					}
				}
			})
	}
	body("fmaMemAVX512",
		fmt.Sprintf("fmaMemAVX512 runs n iterations of %d independent 512-bit multiply-adds, each adding a vector read from p.", peakLoadChains),
		func(i int, one, half reg.VecPhysical, p reg.Register) {
			c.VFMADD213PS(operand.Mem{Base: p, Disp: i * isa.bytes}, half, isa.vec(i))
		})
	body("fmaBcstAVX512",
		fmt.Sprintf("fmaBcstAVX512 runs n iterations of %d independent 512-bit multiply-adds, each adding a float read from p and broadcast.", peakLoadChains),
		func(i int, one, half reg.VecPhysical, p reg.Register) {
			c.VFMADD213PS_BCST(operand.Mem{Base: p, Disp: 4 * i}, half, isa.vec(i))
		})
}

// peakLoop emits a probe's body: n (the argument) iterations of op for
// chains i < chains, with the constants ½ and 1 in registers k and k+1
// and every chain starting at 1; p, if not nil, is loaded with the
// argument p first.
func peakLoop(c *build.Context, isa vecISA, tab operand.Mem, chains, k int, p reg.Register, op func(i int, one, half reg.VecPhysical)) {
	n := reg.RCX
	c.Load(c.Param("n"), n)
	if p != nil {
		c.Load(c.Param("p"), p)
	}
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	half, one := isa.vec(k), isa.vec(k+1)
	c.VBROADCASTSS(tab, half)
	c.VBROADCASTSS(tab.Offset(4), one)
	for i := range chains {
		c.VMOVAPS(one, isa.vec(i))
	}
	c.Label("loop")
	for i := range chains {
		op(i, one, half)
	}
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}
