package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The exponential of float32 values through float64 (kernel.ExpF32):
// eight values a step, widened to float64 lanes, each computed with the
// float64 operations of the Go runtime's amd64 math.Exp on a processor
// with FMA, one for one (the argument reduced by a multiple of ln 2 in
// two parts, scaled by 1/16, a polynomial of degree 8, squared back four
// times, times the power of two), then rounded to float32: the bits of
// float32(math.Exp(float64(x))). A step whose values are not all within
// ±expLimit, where that function takes other branches (not finite,
// overflow, a subnormal or zero result), is left to the caller.
func buildExp(c *build.Context) {
	name := "expF32AVX512"
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, src []float32, tab *float64) int")
	c.Doc(name+" sets dst[i] to float32(math.Exp(float64(src[i]))) for the steps of 8 values of dst (a multiple of 8 long) up to the",
		"first whose values are not all within the limits in tab (see kernel.expTable), and returns how many values it set.")
	n, d, s, t, i := reg.RCX, reg.RDI, reg.RSI, reg.RDX, reg.RAX
	c.Load(c.Param("dst").Len(), n)
	c.Load(c.Param("dst").Base(), d)
	c.Load(c.Param("src").Base(), s)
	c.Load(c.Param("tab"), t)
	// tab: lower and upper limits, log2(e), ln 2 upper and lower parts,
	// 1/16, the polynomial's coefficients from the highest (8), 2, the
	// exponent bias (an integer).
	const consts = 16
	k := make([]reg.VecPhysical, consts)
	for j := range consts {
		k[j] = zmm(16 + j)
		c.VBROADCASTSD(operand.Mem{Base: t, Disp: 8 * j}, k[j])
	}
	lo, hi, log2e, ln2u, ln2l, sixteenth := k[0], k[1], k[2], k[3], k[4], k[5]
	coef := k[6:14] // degree 7 down to 0 of the polynomial in the reduced argument
	two, bias := k[14], k[15]
	x, e, p, sc := reg.Z0, reg.Z1, reg.Z2, reg.Z3
	ei := reg.Y4
	c.XORQ(i, i)
	c.Label(name + "_loop")
	c.CMPQ(i, n)
	c.JAE(operand.LabelRef(name + "_done"))
	c.VCVTPS2PD(operand.Mem{Base: s, Index: i, Scale: 4}, x)
	c.VCMPPD(operand.U8(0x1d), lo, x, reg.K1) // x >= lo, ordered
	c.VCMPPD(operand.U8(0x12), hi, x, reg.K2) // x <= hi, ordered
	c.KANDB(reg.K1, reg.K2, reg.K1)
	c.KORTESTB(reg.K1, reg.K1)
	c.JCC(operand.LabelRef(name + "_done")) // not every lane
	// e = round(x·log2(e)); x −= e·ln2 in two parts; x /= 16.
	c.VMULPD(log2e, x, e)
	c.VCVTPD2DQ(e, ei)
	c.VCVTDQ2PD(ei, e)
	c.VFNMADD231PD(ln2u, e, x)
	c.VFNMADD231PD(ln2l, e, x)
	c.VMULPD(sixteenth, x, x)
	// p = ((c7·x + c6)·x + … + c1)·x + c0 by Horner's rule.
	c.VMOVAPD(coef[0], p)
	for _, ck := range coef[1:] {
		c.VFMADD213PD(ck, x, p)
	}
	// x·p is exp(x)−1 of the reduced argument; (y+2)·y squares 1+y less
	// one, four times, the last adding the one back.
	c.VMULPD(p, x, x)
	for r := range 4 {
		c.VADDPD(two, x, p)
		if r < 3 {
			c.VMULPD(p, x, x)
		} else {
			c.VFMADD213PD(coef[len(coef)-1], p, x)
		}
	}
	// Times 2^e: the exponent field (e + bias) << 52.
	c.VPMOVSXDQ(ei, sc)
	c.VPADDQ(bias, sc, sc)
	c.VPSLLQ(operand.U8(52), sc, sc)
	c.VMULPD(sc, x, x)
	c.VCVTPD2PS(x, reg.Y5)
	c.VMOVUPS(reg.Y5, operand.Mem{Base: d, Index: i, Scale: 4})
	c.ADDQ(operand.U8(8), i)
	c.JMP(operand.LabelRef(name + "_loop"))
	c.Label(name + "_done")
	c.VZEROUPPER()
	c.Store(i, c.ReturnIndex(0))
	c.RET()
}
