package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The average pooling kernels (3×3, stride 2, no padding) of planes of
// width 2·outW for outW 8 and 4 (CIFAR-10 quick's pool2, 16×16 -> 8×8, and
// pool3, 8×8 -> 4×4). The plane kernels of poolplane.go fill one output
// row of one plane per vector, 8 or 4 of AVX-512's 16 lanes here; these
// fill a vector with the same output row of g = 16/outW consecutive
// planes (lanes [outW·i, outW·(i+1)) are plane i's), so one vector
// instruction does the work of g. The additions are those of
// avePool3s2AVX512: each window's sum from zero in row-major order, then
// one division by its size clipped to the plane; the column 2·pw+2 of
// the last output of a row lies past the plane and adds +0 (a sum from +0
// never is −0, so this changes nothing).

func buildAveSmall(c *build.Context) {
	tab := aveSmallConsts(c)
	for _, outW := range []int{8, 4} {
		aveSmall512(c, tab, outW)
	}
	// The gradient of 8-wide outputs, 2 planes a vector, was no faster
	// than avePoolBack3s2AVX512 (bound by the stores of its 1 KB planes).
	aveSmallBack512(c, tab, 4)
	aveSmall4_256(c, tab)
}

// aveSmallConsts emits the tables: at 0, 64, 128 the lanes 2l, 2l+1 and
// 2l+2 (window columns 0, 1, 2 of output l when the planes' rows lie
// back to back); at 192 and 256 the clipped window widths per lane, 3
// but 2 for each plane's last output, for outW 8 and 4.
func aveSmallConsts(c *build.Context) operand.Mem {
	m := c.StaticGlobal("aveSmallConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for j := 0; j < 3; j++ {
		for l := 0; l < 16; l++ {
			c.AddDatum(64*j+4*l, operand.U32(2*l+j))
		}
	}
	for i, outW := range []int{8, 4} {
		for l := 0; l < 16; l++ {
			w := float32(3)
			if l%outW == outW-1 {
				w = 2
			}
			c.AddDatum(192+64*i+4*l, operand.U32(math.Float32bits(w)))
		}
	}
	// At 320: the lanes max(0, l/2 − 1), l = 0 … 31 (the output of
	// window column 2 of an even column l; l = 0 is masked off).
	for l := 0; l < 32; l++ {
		c.AddDatum(320+4*l, operand.U32(max(0, l/2-1)))
	}
	// At 448: the lanes l/2, l = 0 … 31 (the output of window column 0
	// or 1 of column l).
	for l := 0; l < 32; l++ {
		c.AddDatum(448+4*l, operand.U32(l/2))
	}
	// At 576: the AVX2 load mask of columns 2 … 7 of an 8-wide row (six
	// lanes of all ones); at 608: the AVX2 kernel's clipped window widths
	// in its lane order (outputs 0, 1 of two planes, then 2, 3).
	for l := 0; l < 8; l++ {
		c.AddDatum(576+4*l, operand.U32(map[bool]uint32{true: 0xffffffff}[l < 6]))
	}
	for l := 0; l < 8; l++ {
		w := float32(3)
		if l == 5 || l == 7 {
			w = 2
		}
		c.AddDatum(608+4*l, operand.U32(math.Float32bits(w)))
	}
	return m
}

// The gradient kernels take the same vectors of planes: output row ph of
// g planes, each gradient divided by its window's size, is spread over
// the planes' 2·outW columns, two vectors of 16 (for outW 8 a plane each,
// for outW 4 two planes each): column c of a plane is (+0 + B) + A, A the
// gradient of output ⌊c/2⌋ and B, for even c ≥ 2, that of output c/2 − 1
// (+0 elsewhere), the order of the layer's spread row; input row 2·ph is
// the previous spread row plus this one (this one alone for ph = 0), row
// 2·ph+1 this one, and row 2·outH, when inside the planes, the last one,
// as avePoolBack3s2AVX512.

// aveSmallBack512 emits aveSmallBack{outW}AVX512, the gradient of
// aveSmall{outW}AVX512 (the rows [0, min(height, 2·outH+1)) of dx).
func aveSmallBack512(c *build.Context, tab operand.Mem, outW int) {
	g := 16 / outW
	name := fmt.Sprintf("aveSmallBack%dAVX512", outW)
	poolFunc(c, name, "func(dx *float32, dy *float32, groups, height, outH int)",
		fmt.Sprintf("%s sets the rows [0, min(height, 2*outH+1)) of groups·%d consecutive height×%d planes dx to the gradient of aveSmall%dAVX512, as avePoolBack3s2AVX512, %d planes to a vector.", name, g, 2*outW, outW, g))
	dxS, dyS, hwB, oB, h3, ph2, rowsHere, t, dstp, srcp, n, outH2 := reg.RSI, reg.RDI, reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.RAX, reg.R13, reg.R14, reg.RCX, reg.RBX
	c.Load(c.Param("dx"), dxS)
	c.Load(c.Param("dy"), dyS)
	c.Load(c.Param("groups"), n)
	c.Load(c.Param("height"), hwB)
	c.SHLQ(operand.U8(uint8(bitsOf(2*outW*4))), hwB)
	c.Load(c.Param("outH"), oB)
	c.MOVQ(oB, outH2)
	c.SHLQ(operand.U8(1), outH2)
	c.SHLQ(operand.U8(uint8(bitsOf(outW*4))), oB)
	c.LEAQ(operand.Mem{Base: hwB, Index: hwB, Scale: 2}, h3)
	gv, v, aLo, aHi, bLo, bHi, pLo, pHi := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7
	rLo, rHi, div, rf := reg.Z8, reg.Z9, reg.Z11, reg.Z12
	dupLo, dupHi, bTabLo, bTabHi, zero, csz := reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z28, reg.Z27
	c.VMOVDQU32(tab.Offset(448), dupLo)
	c.VMOVDQU32(tab.Offset(512), dupHi)
	c.VMOVDQU32(tab.Offset(320), bTabLo)
	c.VMOVDQU32(tab.Offset(384), bTabHi)
	c.VPXORD(zero, zero, zero)
	if outW == 8 {
		c.VMOVUPS(tab.Offset(192), csz)
		c.MOVL(operand.U32(0x5554), reg.EAX)
	} else {
		c.VMOVUPS(tab.Offset(256), csz)
		c.MOVL(operand.U32(0x5454), reg.EAX)
	}
	c.KMOVW(reg.EAX, reg.K2)
	rowBytes := 2 * outW * 4
	// store writes the spread rows lo, hi (the g planes' columns) to the
	// input rows at row.
	store := func(lo, hi reg.VecPhysical, row operand.Mem) {
		at := func(idx reg.Register, scale uint8) operand.Mem {
			m := row
			if idx != nil {
				m.Index, m.Scale = idx, scale
			}
			return m
		}
		if outW == 8 {
			c.VMOVUPS(lo, at(nil, 0))
			c.VMOVUPS(hi, at(hwB, 1))
		} else {
			c.VMOVUPS(lo.AsY(), at(nil, 0))
			c.VEXTRACTF32X8(operand.U8(1), lo, at(hwB, 1))
			c.VMOVUPS(hi.AsY(), at(hwB, 2))
			c.VEXTRACTF32X8(operand.U8(1), hi, at(h3, 1))
		}
	}

	c.Label("group")
	c.MOVQ(dxS, dstp)
	c.MOVQ(dyS, srcp)
	c.XORQ(ph2, ph2)
	c.Label("outRow")
	c.Load(c.Param("height"), rowsHere)
	c.SUBQ(ph2, rowsHere)
	c.CMPQ(rowsHere, operand.U8(3))
	c.MOVL(operand.U32(3), reg.EDX)
	c.CMOVQGT(reg.RDX, rowsHere)
	c.MOVQ(rowsHere, t)
	c.VCVTSI2SSQ(t, reg.X12, reg.X12)
	c.VBROADCASTSS(reg.X12, rf)
	c.VMULPS(rf, csz, div)
	if outW == 8 {
		c.VMOVUPS(operand.Mem{Base: srcp}, gv.AsY())
		c.VINSERTF32X8(operand.U8(1), operand.Mem{Base: srcp, Index: oB, Scale: 1}, gv, gv)
	} else {
		c.VMOVUPS(operand.Mem{Base: srcp}, gv.AsX())
		c.VINSERTF32X4(operand.U8(1), operand.Mem{Base: srcp, Index: oB, Scale: 1}, gv, gv)
		c.VINSERTF32X4(operand.U8(2), operand.Mem{Base: srcp, Index: oB, Scale: 2}, gv, gv)
		c.LEAQ(operand.Mem{Base: srcp, Index: oB, Scale: 2}, t)
		c.VINSERTF32X4(operand.U8(3), operand.Mem{Base: t, Index: oB, Scale: 1}, gv, gv)
	}
	c.VDIVPS(div, gv, v)
	c.VPERMPS(v, dupLo, aLo)
	c.VPERMPS(v, dupHi, aHi)
	c.VPERMPS_Z(v, bTabLo, reg.K2, bLo)
	c.VPERMPS_Z(v, bTabHi, reg.K2, bHi)
	for _, h := range [][3]reg.VecPhysical{{bLo, aLo, rLo}, {bHi, aHi, rHi}} {
		c.VADDPS(zero, h[0], h[2])
		c.VADDPS(h[1], h[2], h[2])
	}
	// Row 2·ph: the previous spread row plus this one (this one alone for
	// ph = 0).
	c.VMOVAPS(rLo, aLo)
	c.VMOVAPS(rHi, aHi)
	c.TESTQ(ph2, ph2)
	c.JZ(operand.LabelRef("top"))
	c.VADDPS(rLo, pLo, aLo)
	c.VADDPS(rHi, pHi, aHi)
	c.Label("top")
	store(aLo, aHi, operand.Mem{Base: dstp})
	c.VMOVAPS(rLo, pLo)
	c.VMOVAPS(rHi, pHi)
	c.CMPQ(rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("next"))
	store(rLo, rHi, operand.Mem{Base: dstp, Disp: rowBytes})
	c.Label("next")
	c.ADDQ(operand.U32(uint64(2*rowBytes)), dstp)
	c.ADDQ(operand.U8(uint8(outW*4)), srcp)
	c.ADDQ(operand.U8(2), ph2)
	c.CMPQ(ph2, outH2)
	c.JLT(operand.LabelRef("outRow"))
	// Row 2·outH, when inside the planes: the last spread row alone.
	c.CMPQ(rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("groupEnd"))
	store(pLo, pHi, operand.Mem{Base: dstp})
	c.Label("groupEnd")
	for i := 0; i < g; i++ {
		c.ADDQ(hwB, dxS)
		c.ADDQ(oB, dyS)
	}
	c.SUBQ(operand.U8(1), n)
	c.JNZ(operand.LabelRef("group"))
	c.VZEROUPPER()
	c.RET()
}

// aveSmall512 emits aveSmall{outW}AVX512 over groups groups of 16/outW
// planes of height×(2·outW).
func aveSmall512(c *build.Context, tab operand.Mem, outW int) {
	g := 16 / outW
	name := fmt.Sprintf("aveSmall%dAVX512", outW)
	poolFunc(c, name, "func(y *float32, x *float32, groups, height, outH int)",
		fmt.Sprintf("%s sets y to the averages of the 3×3 windows, stride 2, of groups·%d consecutive height×%d planes x clipped to them, as avePool3s2AVX512 with outW %d (the planes' outputs outH×%d each), %d planes to a vector.", name, g, 2*outW, outW, outW, g))
	xp, yp, hwB, oB, h3, ph2, rowsHere, t, srcp, dstp, n, outH2 := reg.RSI, reg.RDI, reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.RAX, reg.R13, reg.R14, reg.RCX, reg.RBX
	c.Load(c.Param("y"), yp)
	c.Load(c.Param("x"), xp)
	c.Load(c.Param("groups"), n)
	c.Load(c.Param("height"), hwB)
	c.SHLQ(operand.U8(uint8(bitsOf(2*outW*4))), hwB) // plane bytes: height·2·outW·4
	c.Load(c.Param("outH"), oB)
	c.MOVQ(oB, outH2)
	c.SHLQ(operand.U8(1), outH2)
	c.SHLQ(operand.U8(uint8(bitsOf(outW*4))), oB) // output plane bytes
	c.LEAQ(operand.Mem{Base: hwB, Index: hwB, Scale: 2}, h3)
	evens, odds, evens2, csz := reg.Z30, reg.Z29, reg.Z28, reg.Z27
	v0, v1, e, o, e2 := reg.Z6, reg.Z7, reg.Z10, reg.Z11, reg.Z12
	p0, sum, div, rf := reg.Z0, reg.Z1, reg.Z2, reg.Z4
	c.VMOVDQU32(tab, evens)
	c.VMOVDQU32(tab.Offset(64), odds)
	c.VMOVDQU32(tab.Offset(128), evens2)
	if outW == 8 {
		c.VMOVUPS(tab.Offset(192), csz)
		c.MOVL(operand.U32(0x7f7f), reg.EAX)
	} else {
		c.VMOVUPS(tab.Offset(256), csz)
		c.MOVL(operand.U32(0x7777), reg.EAX)
	}
	c.KMOVW(reg.EAX, reg.K7)
	rowBytes := 2 * outW * 4

	c.Label("group")
	c.MOVQ(xp, srcp)
	c.MOVQ(yp, dstp)
	c.XORQ(ph2, ph2)
	// horiz adds the window columns of input row r (of the rows at srcp)
	// to acc, in order; the row's three columns are left in e, o, e2.
	horiz := func(r int, acc reg.VecPhysical, load bool) {
		if load {
			at := func(idx reg.Register, scale uint8) operand.Mem {
				m := operand.Mem{Base: srcp, Disp: r * rowBytes}
				if idx != nil {
					m.Index, m.Scale = idx, scale
				}
				return m
			}
			if outW == 8 {
				c.VMOVUPS(at(nil, 0), v0)
				c.VMOVUPS(at(hwB, 1), v1)
			} else {
				c.VMOVUPS(at(nil, 0), v0.AsY())
				c.VINSERTF32X8(operand.U8(1), at(hwB, 1), v0, v0)
				c.VMOVUPS(at(hwB, 2), v1.AsY())
				c.VINSERTF32X8(operand.U8(1), at(h3, 1), v1, v1)
			}
			c.VMOVDQA32(evens, e)
			c.VPERMI2PS(v1, v0, e)
			c.VMOVDQA32(odds, o)
			c.VPERMI2PS(v1, v0, o)
			c.VMOVDQA32(evens2, e2)
			c.VPERMI2PS_Z(v1, v0, reg.K7, e2)
		}
		c.VADDPS(e, acc, acc)
		c.VADDPS(o, acc, acc)
		c.VADDPS(e2, acc, acc)
	}
	c.VPXORD(p0, p0, p0)
	horiz(0, p0, true)
	aveSmallRowSum(c, ph2, rowsHere, t, p0, sum, div, rf, csz, reg.X5, c.VPXORD, horiz)
	if outW == 8 {
		c.VMOVUPS(sum.AsY(), operand.Mem{Base: dstp})
		c.VEXTRACTF32X8(operand.U8(1), sum, operand.Mem{Base: dstp, Index: oB, Scale: 1})
	} else {
		c.VMOVUPS(sum.AsX(), operand.Mem{Base: dstp})
		c.VEXTRACTF32X4(operand.U8(1), sum, operand.Mem{Base: dstp, Index: oB, Scale: 1})
		c.VEXTRACTF32X4(operand.U8(2), sum, operand.Mem{Base: dstp, Index: oB, Scale: 2})
		c.LEAQ(operand.Mem{Base: dstp, Index: oB, Scale: 2}, t)
		c.VEXTRACTF32X4(operand.U8(3), sum, operand.Mem{Base: t, Index: oB, Scale: 1})
	}
	c.ADDQ(operand.U32(uint64(2*rowBytes)), srcp)
	c.ADDQ(operand.U8(uint8(outW*4)), dstp)
	c.ADDQ(operand.U8(2), ph2)
	c.CMPQ(ph2, outH2)
	c.JLT(operand.LabelRef("outRow"))

	// The next group: g planes on.
	for i := 0; i < g; i++ {
		c.ADDQ(hwB, xp)
		c.ADDQ(oB, yp)
	}
	c.SUBQ(operand.U8(1), n)
	c.JNZ(operand.LabelRef("group"))
	c.VZEROUPPER()
	c.RET()
}

// aveSmall4_256 emits aveSmall4AVX2, aveSmall4AVX512 for AVX2: 2 planes
// to a vector of 8, in the lane order of VSHUFPS over the planes' rows
// (outputs 0, 1 of the first plane, 0, 1 of the second, then 2, 3 of
// each), put back in order by VPERMQ before the stores.
func aveSmall4_256(c *build.Context, tab operand.Mem) {
	name := "aveSmall4AVX2"
	poolFunc(c, name, "func(y *float32, x *float32, groups, height, outH int)",
		"aveSmall4AVX2 is aveSmall4AVX512 for AVX2, groups·2 planes, 2 planes to a vector.")
	xp, yp, hwB, oB, ph2, rowsHere, t, srcp, dstp, n, outH2 := reg.RSI, reg.RDI, reg.R8, reg.R9, reg.R11, reg.R12, reg.RAX, reg.R13, reg.R14, reg.RCX, reg.RBX
	c.Load(c.Param("y"), yp)
	c.Load(c.Param("x"), xp)
	c.Load(c.Param("groups"), n)
	c.Load(c.Param("height"), hwB)
	c.SHLQ(operand.U8(5), hwB) // plane bytes: height·8·4
	c.Load(c.Param("outH"), oB)
	c.MOVQ(oB, outH2)
	c.SHLQ(operand.U8(1), outH2)
	c.SHLQ(operand.U8(4), oB) // output plane bytes: outH·4·4
	v0, v1, u0, u1, mask, e, o, e2 := reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y10, reg.Y11, reg.Y12
	p0, sum, div, rf, csz := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y9
	c.VMOVDQU(tab.Offset(576), mask)
	c.VMOVUPS(tab.Offset(608), csz)
	const rowBytes = 32

	c.Label("group")
	c.MOVQ(xp, srcp)
	c.MOVQ(yp, dstp)
	c.XORQ(ph2, ph2)
	horiz := func(r int, acc reg.VecPhysical, load bool) {
		if load {
			at := func(second bool, off int) operand.Mem {
				m := operand.Mem{Base: srcp, Disp: r*rowBytes + off}
				if second {
					m.Index, m.Scale = hwB, 1
				}
				return m
			}
			c.VMOVUPS(at(false, 0), v0)
			c.VMOVUPS(at(true, 0), v1)
			c.VMASKMOVPS(at(false, 8), mask, u0)
			c.VMASKMOVPS(at(true, 8), mask, u1)
			c.VSHUFPS(operand.U8(0x88), v1, v0, e)
			c.VSHUFPS(operand.U8(0xdd), v1, v0, o)
			c.VSHUFPS(operand.U8(0x88), u1, u0, e2)
		}
		c.VADDPS(e, acc, acc)
		c.VADDPS(o, acc, acc)
		c.VADDPS(e2, acc, acc)
	}
	c.VXORPS(p0, p0, p0)
	horiz(0, p0, true)
	aveSmallRowSum(c, ph2, rowsHere, t, p0, sum, div, rf, csz, reg.X3, c.VXORPS, horiz)
	c.VPERMQ(operand.U8(0xd8), sum, sum)
	c.VMOVUPS(sum.AsX(), operand.Mem{Base: dstp})
	c.VEXTRACTF128(operand.U8(1), sum, operand.Mem{Base: dstp, Index: oB, Scale: 1})
	c.ADDQ(operand.U8(2*rowBytes), srcp)
	c.ADDQ(operand.U8(16), dstp)
	c.ADDQ(operand.U8(2), ph2)
	c.CMPQ(ph2, outH2)
	c.JLT(operand.LabelRef("outRow"))

	c.ADDQ(hwB, xp)
	c.ADDQ(hwB, xp)
	c.ADDQ(oB, yp)
	c.ADDQ(oB, yp)
	c.SUBQ(operand.U8(1), n)
	c.JNZ(operand.LabelRef("group"))
	c.VZEROUPPER()
	c.RET()
}

// aveSmallRowSum emits the label outRow and one output row's sums of the
// forward kernels: p0 (the first window row, computed before) into sum,
// then the window's second and third rows where the plane has them
// (horiz(r, acc, load) adds input row r's window columns into acc; the
// third row also starts the next output row's p0, cleared by zero), and
// sum divided by the window's size (rows clipped to the plane, times the
// columns' sizes in csz), xr the scalar register for the row count.
func aveSmallRowSum(c *build.Context, ph2, rowsHere, t reg.Register, p0, sum, div, rf, csz reg.VecPhysical, xr reg.VecPhysical,
	zero func(ops ...operand.Op), horiz func(r int, acc reg.VecPhysical, load bool)) {
	c.Label("outRow")
	c.Load(c.Param("height"), rowsHere)
	c.SUBQ(ph2, rowsHere)
	c.CMPQ(rowsHere, operand.U8(3))
	c.MOVL(operand.U32(3), reg.EDX)
	c.CMOVQGT(reg.RDX, rowsHere)
	c.VMOVAPS(p0, sum)
	c.CMPQ(rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("divide"))
	horiz(1, sum, true)
	c.CMPQ(rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("divide"))
	horiz(2, sum, true)
	zero(p0, p0, p0)
	horiz(2, p0, false)
	c.Label("divide")
	c.MOVQ(rowsHere, t)
	c.VCVTSI2SSQ(t, xr, xr)
	c.VBROADCASTSS(xr, rf)
	c.VMULPS(rf, csz, div)
	c.VDIVPS(div, sum, sum)
}
