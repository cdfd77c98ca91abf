package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The uniform values of a linear congruential generator (kernel.LCGFill):
// four vectors of consecutive states, each lane stepped by the
// generator's step of 4·lanes at once (a multiplication and an addition
// mod 2³² per lane), so that the four chains of dependent multiplications
// run side by side; each state's top 24 bits converted exactly to a float
// and scaled by 2⁻²⁴.
func buildLCG(c *build.Context) {
	lcgFill(c, "lcgFillAVX512", 16)
	lcgFill(c, "lcgFillAVX2", 8)
}

// lcgVectors is how many vectors of states a step of the LCG kernels
// holds.
const lcgVectors = 4

// lcgFill emits name for vectors of the given lanes (16: AVX-512, 8:
// AVX2). tab holds, for lane j of the 4·lanes consecutive states, the
// multiplier and the addend of the generator's step of j+1 (A[j], then
// C[j]), then those of the step of 4·lanes.
func lcgFill(c *build.Context, name string, lanes int) {
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst []float32, state uint32, tab *uint32) uint32")
	c.Doc(name+" sets dst[i] to float32(s[i+1]>>8)/2²⁴, s[0] = state, s[i+1] = A·s[i] + C, for a length of dst that is a multiple of",
		"4 vectors, from tab (see kernel.lcgTable), and returns the last state.")
	n, d, t := reg.RCX, reg.RDI, reg.RSI
	c.Load(c.Param("dst").Len(), n)
	c.Load(c.Param("dst").Base(), d)
	c.Load(c.Param("tab"), t)
	c.Load(c.Param("state"), reg.EAX)
	per := lcgVectors * lanes
	bytes := 4 * lanes
	st := [lcgVectors]reg.Register{reg.Y0, reg.Y1, reg.Y2, reg.Y3}
	tmp := [lcgVectors]reg.Register{reg.Y4, reg.Y5, reg.Y6, reg.Y7}
	jumpA, jumpC, scale, bcast := reg.Y15, reg.Y14, reg.Y13, reg.Y12
	if lanes == 16 {
		st = [lcgVectors]reg.Register{reg.Z0, reg.Z1, reg.Z2, reg.Z3}
		tmp = [lcgVectors]reg.Register{reg.Z4, reg.Z5, reg.Z6, reg.Z7}
		jumpA, jumpC, scale, bcast = reg.Z30, reg.Z29, reg.Z28, reg.Z31
	}
	// The state in every lane, then the first 4·lanes states.
	c.VMOVD(reg.EAX, reg.X8)
	c.VPBROADCASTD(reg.X8, bcast)
	for v := range lcgVectors {
		c.VPMULLD(operand.Mem{Base: t, Disp: v * bytes}, bcast, st[v])
		c.VPADDD(operand.Mem{Base: t, Disp: 4*per + v*bytes}, st[v], st[v])
	}
	c.VPBROADCASTD(operand.Mem{Base: t, Disp: 8 * per}, jumpA)
	c.VPBROADCASTD(operand.Mem{Base: t, Disp: 8*per + 4}, jumpC)
	c.MOVL(operand.U32(0x33800000), reg.EBX) // 2⁻²⁴
	c.VMOVD(reg.EBX, reg.X8)
	c.VPBROADCASTD(reg.X8, scale)
	c.SHRQ(operand.U8(lcgShift(per)), n)
	c.JZ(operand.LabelRef(name + "_done"))
	c.Label(name + "_loop")
	for v := range lcgVectors {
		c.VPSRLD(operand.U8(8), st[v], tmp[v])
		c.VCVTDQ2PS(tmp[v], tmp[v])
		c.VMULPS(scale, tmp[v], tmp[v])
		c.VMOVUPS(tmp[v], operand.Mem{Base: d, Disp: v * bytes})
	}
	c.DECQ(n)
	c.JZ(operand.LabelRef(name + "_last"))
	for v := range lcgVectors {
		c.VPMULLD(jumpA, st[v], st[v])
		c.VPADDD(jumpC, st[v], st[v])
	}
	c.ADDQ(operand.U32(4*per), d)
	c.JMP(operand.LabelRef(name + "_loop"))
	c.Label(name + "_last")
	// The last lane of the last vector: the last state.
	last := st[lcgVectors-1]
	if lanes == 16 {
		c.VEXTRACTI32X4(operand.U8(3), last, reg.X8)
	} else {
		c.VEXTRACTI128(operand.U8(1), last, reg.X8)
	}
	c.VPEXTRD(operand.U8(3), reg.X8, reg.EAX)
	c.Label(name + "_done")
	c.VZEROUPPER()
	c.Store(reg.EAX, c.ReturnIndex(0))
	c.RET()
}

// lcgShift returns log2 of per, a power of two.
func lcgShift(per int) int {
	k := 0
	for 1<<k < per {
		k++
	}
	return k
}
