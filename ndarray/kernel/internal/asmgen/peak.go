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
		n := reg.RCX
		c.Load(c.Param("n"), n)
		c.TESTQ(n, n)
		c.JLE(operand.LabelRef("done"))
		half, one := isa.vec(14), isa.vec(15)
		c.VBROADCASTSS(tab, half)
		c.VBROADCASTSS(tab.Offset(4), one)
		for i := range peakChains {
			c.VMOVAPS(one, isa.vec(i))
		}
		c.Label("loop")
		for i := range peakChains {
			c.VFMADD213PS(one, half, isa.vec(i))
		}
		c.DECQ(n)
		c.JNZ(operand.LabelRef("loop"))
		c.Label("done")
		c.VZEROUPPER()
		c.RET()
	}
}
