package main

import (
	"math"
	"strconv"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The plane kernels of 2×2, stride-2 max pooling without padding (LeNet's
// poolings), over a run of planes in one call.
//
// Forward: a strip of outputs reads two input rows; each row is split into
// its even and odd columns by lane permutes, and the output is the first
// of (row 0, even), (row 0, odd), (row 1, even), (row 1, odd) that is
// strictly greater than those before it, the first one raised to
// −MaxFloat32 (so that −Inf and NaN are never chosen) and −1 marking an
// output with nothing greater than −MaxFloat32: Caffe's choice.
//
// Backward: the windows do not overlap, so each input takes the gradient
// of the one output whose window holds it when that output chose it, and
// +0 otherwise. Each input row is written once from its output row's
// gradients and argmaxes, duplicated to the columns by lane permutes; the
// gradient is added to +0 first, as the scatter into a cleared plane adds
// it (which turns −0 into +0).

func buildPool22(c *build.Context) {
	tab := pool22Consts(c)
	maxPool2s2_512(c, tab, false)
	maxPool2s2_512(c, tab, true)
	maxPool2s2_256(c, tab)
	maxPoolBack2s2_512(c, tab, false)
	maxPoolBack2s2_512(c, tab, true)
	maxPoolBack2s2_256(c, tab)
}

// pool22Consts emits the tables: at 0 and 64, the lanes 0, 2, …, 30 and
// 1, 3, …, 31 (the even and odd columns of 32); at 128 and 192, the lanes
// 0, 0, 1, 1, …, 7, 7 and 8, 8, …, 15, 15 (the output of each of 32
// columns); at 256, the lanes 0 … 15; at 320, the AVX2 forward kernel's
// column offsets 2·l in its lane order (0, 1, 4, 5, 2, 3, 6, 7); at 352
// and 384, the lanes 0, 0, 1, 1, 2, 2, 3, 3 and 4, 4, …, 7, 7; at 416,
// −MaxFloat32, and at 448, the int32 1, eight of each.
func pool22Consts(c *build.Context) operand.Mem {
	m := c.StaticGlobal("pool22Consts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	tables := []func(l int) uint32{
		func(l int) uint32 { return uint32(2 * l) },
		func(l int) uint32 { return uint32(2*l + 1) },
		func(l int) uint32 { return uint32(l / 2) },
		func(l int) uint32 { return uint32(8 + l/2) },
		func(l int) uint32 { return uint32(l) },
	}
	for i, f := range tables {
		for l := 0; l < 16; l++ {
			c.AddDatum(64*i+4*l, operand.U32(f(l)))
		}
	}
	order := []int{0, 1, 4, 5, 2, 3, 6, 7}
	tables256 := []func(l int) uint32{
		func(l int) uint32 { return uint32(2 * order[l]) },
		func(l int) uint32 { return uint32(l / 2) },
		func(l int) uint32 { return uint32(4 + l/2) },
		func(int) uint32 { return math.Float32bits(-math.MaxFloat32) },
		func(int) uint32 { return 1 },
	}
	for i, f := range tables256 {
		for l := 0; l < 8; l++ {
			c.AddDatum(320+32*i+4*l, operand.U32(f(l)))
		}
	}
	// The tables of planes 8 wide (the narrow paths): at 480 and 544, the
	// window rows 0 and 1 of four rows of outputs from two vectors of two
	// input rows each (the even columns of the first and second vector,
	// then the odd ones); at 608, the offsets 2·pw of four rows of four
	// outputs in the plane; at 672, 736, 800 and 864, the output of each
	// column of input rows 2j and 2j+1 (4j + (c mod 8)/2); at 928, the
	// lanes 0 … 63; at 1184, the AVX2 offsets of two rows of outputs in
	// the lane order of VSHUFPS.
	narrow := []func(l int) uint32{
		func(l int) uint32 { return uint32(16*(l/4%2) + 2*(l%4) + l/8) },
		func(l int) uint32 { return uint32(16*(l/4%2) + 2*(l%4) + l/8 + 8) },
		func(l int) uint32 { return uint32(16*(l/4) + 2*(l%4)) },
	}
	for j := 0; j < 4; j++ {
		narrow = append(narrow, func(l int) uint32 { return uint32(4*j + l%8/2) })
	}
	for i, f := range narrow {
		for l := 0; l < 16; l++ {
			c.AddDatum(480+64*i+4*l, operand.U32(f(l)))
		}
	}
	for l := 0; l < 64; l++ {
		c.AddDatum(928+4*l, operand.U32(l))
	}
	for l, v := range []int{0, 2, 16, 18, 4, 6, 20, 22} {
		c.AddDatum(1184+4*l, operand.U32(v))
	}
	return m
}

// nextPlane emits the step of the plane pointers xS (height·width floats)
// and yS, mS (outH·outW each) and the loop over planes counted by n.
func nextPlane(c *build.Context, xS, yS, mS, n, t reg.Register, label string) {
	c.Load(c.Param("height"), t)
	c.IMULQ(paramAddr(c, "width"), t)
	c.LEAQ(operand.Mem{Base: xS, Index: t, Scale: 4}, xS)
	c.Load(c.Param("outH"), t)
	c.IMULQ(paramAddr(c, "outW"), t)
	c.LEAQ(operand.Mem{Base: yS, Index: t, Scale: 4}, yS)
	c.LEAQ(operand.Mem{Base: mS, Index: t, Scale: 4}, mS)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(label))
}

// narrowCheck emits the test for planes 8 wide pooled exactly (height
// 2·outH, outW 4) with outH a multiple of 4, which jumps to label:
// their pairs of input rows are whole vectors, and four rows of outputs
// (AVX2: two) lie in one plane.
func narrowCheck(c *build.Context, width, t reg.Register, label string) {
	c.CMPQ(width, operand.U8(8))
	c.JNE(operand.LabelRef("general"))
	c.Load(c.Param("outW"), t)
	c.CMPQ(t, operand.U8(4))
	c.JNE(operand.LabelRef("general"))
	c.Load(c.Param("outH"), t)
	c.TESTQ(operand.U32(3), t)
	c.JNZ(operand.LabelRef("general"))
	c.SHLQ(operand.U8(1), t)
	c.CMPQ(t, paramAddr(c, "height"))
	c.JEQ(operand.LabelRef(label))
	c.Label("general")
}

// narrowGroups emits the label narrow, n = planes·outH/4 (AVX2, with
// half: /2), the groups of rows of outputs, lim = 16·outH, the offset in
// a plane where its rows of outputs end, and off = 0.
func narrowGroups(c *build.Context, n, off, lim reg.Register, half bool) {
	c.Label("narrow")
	c.Load(c.Param("outH"), lim)
	c.Load(c.Param("planes"), n)
	c.IMULQ(lim, n)
	if half {
		c.SHRQ(operand.U8(1), n)
	} else {
		c.SHRQ(operand.U8(2), n)
	}
	c.SHLQ(operand.U8(4), lim)
	c.XORQ(off, off)
}

// narrowNext emits the step of a group of rows rows of outputs on planes
// 8 wide to the next: xS past its 4·rows input rows, yS and mS past its
// 4·rows outputs, off (16·ph for the group's first row of outputs ph)
// to the next group, back to 0 at the next plane; then the loop over the
// n groups back to narrowGroup, and the return.
func narrowNext(c *build.Context, xS, yS, mS, off, lim, n reg.Register, rows int) {
	c.ADDQ(operand.U32(64*rows), xS)
	c.ADDQ(operand.U8(16*rows), yS)
	c.ADDQ(operand.U8(16*rows), mS)
	c.ADDQ(operand.U8(16*rows), off)
	c.XORQ(reg.RDX, reg.RDX)
	c.CMPQ(off, lim)
	c.CMOVQEQ(reg.RDX, off)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("narrowGroup"))
	finish(c)
}

// planeStrips emits the labels of the loops over planes and over the
// strips of a plane, nl = outW outputs left and cb = 0 its first column
// between them.
func planeStrips(c *build.Context, nl, cb reg.Register) {
	c.Label("plane")
	c.Load(c.Param("outW"), nl)
	c.XORQ(cb, cb)
	c.Label("strip")
}

// maxPool2s2_512 emits maxPool2s2AVX512: strips of 16 outputs over 32
// input columns, output row by output row, plane by plane; planes 8
// wide four rows of outputs at a time. With over it emits
// maxPool2s2OverAVX512, which loads and stores whole vectors (see
// overStores).
func maxPool2s2_512(c *build.Context, tab operand.Mem, over bool) {
	if over {
		poolFunc(c, "maxPool2s2OverAVX512", "func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)", "maxPool2s2OverAVX512 is maxPool2s2AVX512 by whole vectors: it reads up to 31 floats past each row of x and, on planes of at most 16 outputs a row, writes up to 15 past each row of y and mask, which must be readable and written again afterwards.")
	} else {
		poolFunc(c, "maxPool2s2AVX512", "func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)", "maxPool2s2AVX512 sets y and mask to the maxima and argmaxes (Caffe's: the first largest value greater than -MaxFloat32 in row-major order, else -MaxFloat32 and -1) of the 2×2 windows, stride 2, of planes consecutive height×width planes x, clipped to them, for outH×outW outputs per plane whose windows start inside it (planes >= 1).")
	}
	yS, mS, xS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	xp, yp, mp, cb, nl, n := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14, reg.R15
	t := reg.RAX
	loadParams(c, []string{"y", "mask", "x", "width", "planes"}, yS, mS, xS, width, n)

	v0, v1, e, o, best, rel, idx, base := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7
	negMax, evens, odds, minus1, one, rw, rw1 := reg.Z31, reg.Z30, reg.Z29, reg.Z28, reg.Z27, reg.Z26, reg.Z25
	c.VBROADCASTSS(tab.Offset(416), negMax)
	c.VMOVDQU32(tab, evens)
	c.VMOVDQU32(tab.Offset(64), odds)
	c.VPTERNLOGD(operand.U8(0xff), minus1, minus1, minus1)
	c.VPBROADCASTD(tab.Offset(448), one)
	c.VPBROADCASTD(reg.R8L, rw)
	c.VPADDD(one, rw, rw1)
	narrowCheck(c, width, t, "narrow")

	planeStrips(c, nl, cb)
	// K1: the strip's outputs; K3, K4: its columns inside the plane.
	stripMasks512(c, nl, width, cb, t, []int{0, 16}, []reg.Register{reg.K3, reg.K4})
	c.MOVQ(cb, t)
	c.VPBROADCASTD(reg.EAX, base)
	c.VPADDD(evens, base, base)
	c.LEAQ(operand.Mem{Base: xS, Index: cb, Scale: 4}, xp)
	c.LEAQ(operand.Mem{Base: yS, Index: cb, Scale: 2}, yp)
	c.LEAQ(operand.Mem{Base: mS, Index: cb, Scale: 2}, mp)
	c.XORQ(ph2, ph2)

	// split loads the strip's columns of the input row at row and splits
	// them into the even (e) and odd (o) columns, −MaxFloat32 past the
	// plane.
	split := func(row operand.Mem) {
		hi := row
		hi.Disp += 64
		if over {
			c.VMOVUPS(row, v0)
			c.VBLENDMPS(v0, negMax, reg.K3, v0)
			c.VMOVUPS(hi, v1)
			c.VBLENDMPS(v1, negMax, reg.K4, v1)
		} else {
			c.VMOVAPS(negMax, v0)
			c.VMOVUPS(row, reg.K3, v0)
			c.VMOVAPS(negMax, v1)
			c.VMOVUPS(hi, reg.K4, v1)
		}
		c.VMOVDQA32(evens, e)
		c.VPERMI2PS(v1, v0, e)
		c.VMOVDQA32(odds, o)
		c.VPERMI2PS(v1, v0, o)
	}
	c.Label("outRow")
	split(operand.Mem{Base: xp})
	c.VMAXPS(negMax, e, best)
	c.VPXORD(rel, rel, rel)
	takeGreater512(c, best, rel, o, one)
	c.Load(c.Param("height"), rowsHere)
	c.SUBQ(ph2, rowsHere)
	c.CMPQ(rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("store"))
	split(operand.Mem{Base: xp, Index: width, Scale: 4})
	takeGreater512(c, best, rel, e, rw)
	takeGreater512(c, best, rel, o, rw1)
	c.Label("store")
	storeMaxStrip(c, over, negMax, best, minus1, idx, base, rel, cb, nl, yp, mp)
	rowStep(c, xp, yp, mp, width, t)
	c.VPADDD(rw, base, base)
	c.VPADDD(rw, base, base)
	outRowLoop(c, ph2, t, "outRow")

	c.ADDQ(operand.U8(32), cb)
	c.SUBQ(operand.U8(16), nl)
	c.JG(operand.LabelRef("strip"))
	nextPlane(c, xS, yS, mS, n, t, "plane")
	finish(c)

	// Planes 8 wide: four vectors of two input rows each hold the
	// windows of four rows of outputs, whose even and odd columns two
	// permutes per pair of vectors and two 128-bit lane shuffles gather
	// in the order of the outputs.
	off, lim := ph2, rowsHere
	narrowGroups(c, n, off, lim, false)
	v2, v3, pa, pb, pc, pd := reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13
	e1, o1, idxA, idxB, nbase := reg.Z14, reg.Z15, reg.Z24, reg.Z23, reg.Z22
	c.VMOVDQU32(tab.Offset(480), idxA)
	c.VMOVDQU32(tab.Offset(544), idxB)
	c.VMOVDQU32(tab.Offset(608), nbase)
	c.Label("narrowGroup")
	for i, r := range []reg.VecPhysical{v0, v1, v2, v3} {
		c.VMOVUPS(operand.Mem{Base: xS, Disp: 64 * i}, r)
	}
	for _, q := range []struct{ dst, idx, lo, hi reg.VecPhysical }{
		{pa, idxA, v0, v1}, {pb, idxB, v0, v1}, {pc, idxA, v2, v3}, {pd, idxB, v2, v3},
	} {
		c.VMOVDQA32(q.idx, q.dst)
		c.VPERMI2PS(q.hi, q.lo, q.dst)
	}
	c.VSHUFF32X4(operand.U8(0x44), pc, pa, e)
	c.VSHUFF32X4(operand.U8(0xee), pc, pa, o)
	c.VSHUFF32X4(operand.U8(0x44), pd, pb, e1)
	c.VSHUFF32X4(operand.U8(0xee), pd, pb, o1)
	c.VMAXPS(negMax, e, best)
	c.VPXORD(rel, rel, rel)
	for _, q := range []struct{ v, r reg.VecPhysical }{{o, one}, {e1, rw}, {o1, rw1}} {
		takeGreater512(c, best, rel, q.v, q.r)
	}
	c.VPBROADCASTD(off.As32(), base)
	c.VPADDD(nbase, base, base)
	c.VCMPPS(operand.U8(cmpGTOQ), negMax, best, reg.K2)
	c.VMOVDQA32(minus1, idx)
	c.VPADDD(base, rel, reg.K2, idx)
	c.VMOVUPS(best, operand.Mem{Base: yS})
	c.VMOVDQU32(idx, operand.Mem{Base: mS})
	narrowNext(c, xS, yS, mS, off, lim, n, 4)
}

// maxPool2s2_256 emits maxPool2s2AVX2, maxPool2s2AVX512 for AVX2: strips
// of 8 outputs over 16 columns, whose even and odd columns VSHUFPS
// separates within 128-bit lanes, so that the lanes hold the outputs 0, 1,
// 4, 5, 2, 3, 6, 7 until VPERMQ puts them in order at the store. The masks
// of partial strips are vectors kept on the stack.
func maxPool2s2_256(c *build.Context, tab operand.Mem) {
	poolFunc(c, "maxPool2s2AVX2", "func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)", "maxPool2s2AVX2 is maxPool2s2AVX512 for AVX2.")
	yS, mS, xS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	xp, yp, mp, cb, nl, n := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14, reg.R15
	t := reg.RAX
	loadParams(c, []string{"y", "mask", "x", "width", "planes"}, yS, mS, xS, width, n)
	// Locals: the masks of the stores and of the loads at columns 16b and
	// 16b+8; width and width+1 in every lane.
	loc := c.AllocLocal(5 * 32)
	masks := func(i int) operand.Mem { return loc.Offset(32 * i) }
	rw, rw1 := loc.Offset(96), loc.Offset(128)

	v0, v1, e, o, best, rel, k, base := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7
	negMax, one := reg.Y15, reg.Y14
	c.VBROADCASTSS(tab.Offset(416), negMax)
	c.VMOVDQU(tab.Offset(448), one)
	c.VMOVQ(width, reg.X6)
	c.VPBROADCASTD(reg.X6, k)
	c.VMOVDQU(k, rw)
	c.VPADDD(one, k, k)
	c.VMOVDQU(k, rw1)
	narrowCheck(c, width, t, "narrow")

	planeStrips(c, nl, cb)
	stripMasks256(c, nl, width, cb, t, reg.X6, k, tab.Offset(256), masks, []int{0, 8})
	c.LEAQ(operand.Mem{Base: xS, Index: cb, Scale: 4}, xp)
	c.LEAQ(operand.Mem{Base: yS, Index: cb, Scale: 2}, yp)
	c.LEAQ(operand.Mem{Base: mS, Index: cb, Scale: 2}, mp)

	split := func(row operand.Mem, full bool) {
		hi := row
		hi.Disp += 32
		for i, r := range []reg.VecPhysical{v0, v1} {
			m := []operand.Mem{row, hi}[i]
			if full {
				c.VMOVUPS(m, r)
				continue
			}
			c.VMOVDQU(masks(1+i), k)
			c.VMASKMOVPS(m, k, r)
			c.VBLENDVPS(k, r, negMax, r)
		}
		c.VSHUFPS(operand.U8(0x88), v1, v0, e)
		c.VSHUFPS(operand.U8(0xdd), v1, v0, o)
	}
	// rows pools the strip's output rows: with full, a strip of 8
	// outputs whose 16 columns lie inside the plane, by plain loads and
	// stores.
	rows := func(full bool, tag string) {
		c.MOVQ(cb, t)
		c.VMOVQ(t, reg.X7)
		c.VPBROADCASTD(reg.X7, base)
		c.VPADDD(tab.Offset(320), base, base)
		c.XORQ(ph2, ph2)
		c.Label("outRow" + tag)
		split(operand.Mem{Base: xp}, full)
		c.VMAXPS(negMax, e, best)
		c.VCMPPS(operand.U8(cmpGTOQ), best, o, k)
		c.VBLENDVPS(k, o, best, best)
		c.VANDPS(one, k, rel)
		c.Load(c.Param("height"), rowsHere)
		c.SUBQ(ph2, rowsHere)
		c.CMPQ(rowsHere, operand.U8(2))
		c.JLT(operand.LabelRef("store" + tag))
		split(operand.Mem{Base: xp, Index: width, Scale: 4}, full)
		c.VCMPPS(operand.U8(cmpGTOQ), best, e, k)
		c.VBLENDVPS(k, e, best, best)
		c.VBLENDVPS(k, rw, rel, rel)
		c.VCMPPS(operand.U8(cmpGTOQ), best, o, k)
		c.VBLENDVPS(k, o, best, best)
		c.VBLENDVPS(k, rw1, rel, rel)
		c.Label("store" + tag)
		c.VPADDD(base, rel, rel)
		c.VCMPPS(operand.U8(cmpLEOQ), negMax, best, k)
		c.VPOR(k, rel, rel) // −1 where nothing is greater than −MaxFloat32
		storeOutputs256(c, best, rel, k, yp, mp, masks(0), full)
		rowStep(c, xp, yp, mp, width, t)
		c.VPADDD(rw, base, base)
		c.VPADDD(rw, base, base)
		outRowLoop(c, ph2, t, "outRow"+tag)
	}
	fullOrPartial(c, nl, width, cb, t, 16, rows)
	c.ADDQ(operand.U8(16), cb)
	c.SUBQ(operand.U8(8), nl)
	c.JG(operand.LabelRef("strip"))
	nextPlane(c, xS, yS, mS, n, t, "plane")
	finish(c)

	// Planes 8 wide: four input rows, one vector each, hold the windows
	// of two rows of outputs; VSHUFPS takes the even or odd columns of
	// rows 2·ph and 2·ph+2 (or 2·ph+1 and 2·ph+3) at once.
	off, lim := ph2, rowsHere
	narrowGroups(c, n, off, lim, true)
	v2, v3, e1, o1, nbase := reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12
	c.VMOVDQU(tab.Offset(1184), nbase)
	c.Label("narrowGroup")
	for i, r := range []reg.VecPhysical{v0, v1, v2, v3} {
		c.VMOVUPS(operand.Mem{Base: xS, Disp: 32 * i}, r)
	}
	c.VSHUFPS(operand.U8(0x88), v2, v0, e)
	c.VSHUFPS(operand.U8(0xdd), v2, v0, o)
	c.VSHUFPS(operand.U8(0x88), v3, v1, e1)
	c.VSHUFPS(operand.U8(0xdd), v3, v1, o1)
	c.VMAXPS(negMax, e, best)
	c.VCMPPS(operand.U8(cmpGTOQ), best, o, k)
	c.VBLENDVPS(k, o, best, best)
	c.VANDPS(one, k, rel)
	for _, q := range []struct {
		v reg.VecPhysical
		r operand.Mem
	}{{e1, rw}, {o1, rw1}} {
		c.VCMPPS(operand.U8(cmpGTOQ), best, q.v, k)
		c.VBLENDVPS(k, q.v, best, best)
		c.VBLENDVPS(k, q.r, rel, rel)
	}
	c.VMOVQ(off, reg.X7)
	c.VPBROADCASTD(reg.X7, base)
	c.VPADDD(nbase, base, base)
	c.VPADDD(base, rel, rel)
	c.VCMPPS(operand.U8(cmpLEOQ), negMax, best, k)
	c.VPOR(k, rel, rel)
	c.VPERMQ(operand.U8(0xd8), best, best)
	c.VPERMQ(operand.U8(0xd8), rel, rel)
	c.VMOVUPS(best, operand.Mem{Base: yS})
	c.VMOVDQU(rel, operand.Mem{Base: mS})
	narrowNext(c, xS, yS, mS, off, lim, n, 2)
}

// maxPoolBack2s2_512 emits maxPoolBack2s2AVX512: strips of 16 outputs
// over 32 input columns, plane by plane, each input row written once.
// Strips continue while their first column lies inside the plane, so
// that columns past the outputs' windows are cleared too.
//
// With over it emits maxPoolBack2s2OverAVX512, which loads and stores
// whole vectors (see overStores).
func maxPoolBack2s2_512(c *build.Context, tab operand.Mem, over bool) {
	if over {
		poolFunc(c, "maxPoolBack2s2OverAVX512", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack2s2OverAVX512 is maxPoolBack2s2AVX512 by whole vectors: it reads up to 15 values past each row of dy and mask and, on planes at most 32 wide, writes up to 31 floats past each row of dx, which must be readable and written again afterwards.")
	} else {
		poolFunc(c, "maxPoolBack2s2AVX512", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack2s2AVX512 sets planes consecutive height×width planes dx to the gradient of a 2×2, stride-2 max pooling without padding: each element is 0 + dy[i] for the output i whose mask[i] (-1 or inside output i's window) is the element, else +0 (planes >= 1).")
	}
	dxS, dyS, mS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	dxp, dyp, mp, cb, nl, n := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14, reg.R15
	t := reg.RAX
	loadParams(c, []string{"dx", "dy", "mask", "width", "planes"}, dxS, dyS, mS, width, n)

	m, d, mLo, mHi, dLo, dHi := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5
	colLo, colHi, zero, r0, r1 := reg.Z6, reg.Z7, reg.Z8, reg.Z9, reg.Z10
	dupLo, dupHi, iota, minus1, rw, c16 := reg.Z31, reg.Z30, reg.Z29, reg.Z28, reg.Z27, reg.Z26
	c.VMOVDQU32(tab.Offset(128), dupLo)
	c.VMOVDQU32(tab.Offset(192), dupHi)
	c.VMOVDQU32(tab.Offset(256), iota)
	c.VPTERNLOGD(operand.U8(0xff), minus1, minus1, minus1)
	c.VPBROADCASTD(reg.R8L, rw)
	c.VPXORD(zero, zero, zero)
	c.MOVL(operand.U32(16), reg.EAX)
	c.VPBROADCASTD(reg.EAX, c16)
	narrowCheck(c, width, t, "narrow")

	planeStrips(c, nl, cb)
	// K1: the strip's outputs; K3, K4: its columns inside the plane.
	stripMasks512(c, nl, width, cb, t, []int{0, 16}, []reg.Register{reg.K3, reg.K4})
	// colLo, colHi: each column's offset in the plane, in row 2·ph.
	c.MOVQ(cb, t)
	c.VPBROADCASTD(reg.EAX, colLo)
	c.VPADDD(iota, colLo, colLo)
	c.VPADDD(c16, colLo, colHi)
	c.LEAQ(operand.Mem{Base: dxS, Index: cb, Scale: 4}, dxp)
	c.LEAQ(operand.Mem{Base: dyS, Index: cb, Scale: 2}, dyp)
	c.LEAQ(operand.Mem{Base: mS, Index: cb, Scale: 2}, mp)
	c.XORQ(ph2, ph2)

	c.Label("outRow")
	if over {
		c.VMOVDQU32(operand.Mem{Base: mp}, m)
		c.VPBLENDMD(m, minus1, reg.K1, m)
		c.VMOVUPS(operand.Mem{Base: dyp}, d)
		c.VADDPS_Z(zero, d, reg.K1, d)
	} else {
		c.VMOVDQA32(minus1, m)
		c.VMOVDQU32(operand.Mem{Base: mp}, reg.K1, m)
		c.VMOVUPS_Z(operand.Mem{Base: dyp}, reg.K1, d)
		c.VADDPS(zero, d, d)
	}
	c.VPERMD(m, dupLo, mLo)
	c.VPERMD(m, dupHi, mHi)
	c.VPERMPS(d, dupLo, dLo)
	c.VPERMPS(d, dupHi, dHi)
	// The argmaxes relative to each column of row 2·ph: 0 or width when
	// the output chose that column of window row 0 or 1.
	c.VPSUBD(colLo, mLo, mLo)
	c.VPSUBD(colHi, mHi, mHi)
	c.Load(c.Param("height"), rowsHere)
	c.SUBQ(ph2, rowsHere)
	for r, rr := range []reg.VecPhysical{zero, rw} {
		row := operand.Mem{Base: dxp}
		if r == 1 {
			row = operand.Mem{Base: dxp, Index: width, Scale: 4}
			c.CMPQ(rowsHere, operand.U8(2))
			c.JLT(operand.LabelRef("next"))
		}
		hi := row
		hi.Disp += 64
		c.VPCMPEQD(rr, mLo, reg.K5)
		c.VPCMPEQD(rr, mHi, reg.K6)
		c.VMOVAPS_Z(dLo, reg.K5, r0)
		c.VMOVAPS_Z(dHi, reg.K6, r1)
		overStores(c, over, cb, strconv.Itoa(r), func(label string) {
			// 32 columns inside the plane.
			c.MOVQ(width, t)
			c.SUBQ(cb, t)
			c.CMPQ(t, operand.U8(32))
			c.JGE(operand.LabelRef(label))
		}, func() {
			c.VMOVUPS(r0, reg.K3, row)
			c.VMOVUPS(r1, reg.K4, hi)
		}, func() {
			c.VMOVUPS(r0, row)
			c.VMOVUPS(r1, hi)
		})
	}
	c.Label("next")
	rowStep(c, dxp, dyp, mp, width, t)
	c.VPADDD(rw, colLo, colLo)
	c.VPADDD(rw, colLo, colLo)
	c.VPADDD(rw, colHi, colHi)
	c.VPADDD(rw, colHi, colHi)
	outRowLoop(c, ph2, t, "outRow")
	// The row past the windows, when the plane has one (rounding down).
	c.Load(c.Param("height"), t)
	c.CMPQ(ph2, t)
	c.JGE(operand.LabelRef("stripEnd"))
	c.VMOVUPS(zero, reg.K3, operand.Mem{Base: dxp})
	c.VMOVUPS(zero, reg.K4, operand.Mem{Base: dxp, Disp: 64})
	c.Label("stripEnd")
	c.ADDQ(operand.U8(32), cb)
	c.SUBQ(operand.U8(16), nl)
	c.CMPQ(cb, width)
	c.JLT(operand.LabelRef("strip"))
	nextPlane(c, dxS, dyS, mS, n, t, "plane")
	finish(c)

	// Planes 8 wide: four rows of outputs give four vectors of two input
	// rows each.
	off, lim := ph2, rowsHere
	narrowGroups(c, n, off, lim, false)
	dup := []reg.VecPhysical{reg.Z12, reg.Z13, reg.Z14, reg.Z15}
	for j, r := range dup {
		c.VMOVDQU32(tab.Offset(672+64*j), r)
	}
	c.Label("narrowGroup")
	c.VMOVDQU32(operand.Mem{Base: mS}, m)
	c.VMOVUPS(operand.Mem{Base: dyS}, d)
	c.VADDPS(zero, d, d)
	c.VPBROADCASTD(off.As32(), mLo)
	c.VPSUBD(mLo, m, m)
	for j, r := range dup {
		c.VPERMD(m, r, mLo)
		c.VPERMPS(d, r, dLo)
		c.VPCMPEQD(tab.Offset(928+64*j), mLo, reg.K5)
		c.VMOVAPS_Z(dLo, reg.K5, r0)
		c.VMOVUPS(r0, operand.Mem{Base: dxS, Disp: 64 * j})
	}
	narrowNext(c, dxS, dyS, mS, off, lim, n, 4)
}

// maxPoolBack2s2_256 emits maxPoolBack2s2AVX2, maxPoolBack2s2AVX512 for
// AVX2: strips of 8 outputs over 16 input columns, taken as two halves
// of 8 columns; the chosen gradients are kept by AND.
func maxPoolBack2s2_256(c *build.Context, tab operand.Mem) {
	poolFunc(c, "maxPoolBack2s2AVX2", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack2s2AVX2 is maxPoolBack2s2AVX512 for AVX2.")
	dxS, dyS, mS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	dxp, dyp, mp, cb, nl, n := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14, reg.R15
	t := reg.RAX
	loadParams(c, []string{"dx", "dy", "mask", "width", "planes"}, dxS, dyS, mS, width, n)
	// Locals: width in every lane; the lanes of the strip's outputs; its
	// columns inside the plane (two halves).
	loc := c.AllocLocal(4 * 32)
	rw, lanes := loc.Offset(0), loc.Offset(32)
	st := func(h int) operand.Mem { return loc.Offset(64 + 32*h) }

	m, d, mLo, mHi, dLo, dHi := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5
	colLo, colHi, zero, tmp, minus1, k := reg.Y6, reg.Y7, reg.Y8, reg.Y9, reg.Y10, reg.Y11
	c.VPCMPEQD(minus1, minus1, minus1)
	c.VXORPS(zero, zero, zero)
	c.VMOVQ(width, reg.X9)
	c.VPBROADCASTD(reg.X9, tmp)
	c.VMOVDQU(tmp, rw)
	narrowCheck(c, width, t, "narrow")

	planeStrips(c, nl, cb)
	backMasks256(c, nl, width, cb, t, reg.X9, k, tmp, tab.Offset(256), lanes, st(0), st(1))
	c.LEAQ(operand.Mem{Base: dxS, Index: cb, Scale: 4}, dxp)
	c.LEAQ(operand.Mem{Base: dyS, Index: cb, Scale: 2}, dyp)
	c.LEAQ(operand.Mem{Base: mS, Index: cb, Scale: 2}, mp)

	// rows computes the strip's rows: with full, a strip of 8 outputs
	// whose 16 columns lie inside the plane, by plain loads and stores.
	rows := func(full bool, tag string) {
		store := func(v reg.VecPhysical, h int, at operand.Mem) {
			if full {
				c.VMOVUPS(v, at)
				return
			}
			c.VMOVDQU(st(h), k)
			c.VMASKMOVPS(v, k, at)
		}
		c.MOVQ(cb, t)
		c.VMOVQ(t, reg.X6)
		c.VPBROADCASTD(reg.X6, colLo)
		c.VPADDD(tab.Offset(288), colLo, colHi)
		c.VPADDD(tab.Offset(256), colLo, colLo)
		c.XORQ(ph2, ph2)
		c.Label("outRow" + tag)
		if full {
			c.VMOVDQU(operand.Mem{Base: mp}, m)
			c.VMOVUPS(operand.Mem{Base: dyp}, d)
		} else {
			c.VMOVDQU(lanes, k)
			c.VPMASKMOVD(operand.Mem{Base: mp}, k, m)
			c.VBLENDVPS(k, m, minus1, m)
			c.VMASKMOVPS(operand.Mem{Base: dyp}, k, d)
		}
		c.VADDPS(zero, d, d)
		c.VMOVDQU(tab.Offset(352), k)
		c.VPERMD(m, k, mLo)
		c.VPERMPS(d, k, dLo)
		c.VMOVDQU(tab.Offset(384), k)
		c.VPERMD(m, k, mHi)
		c.VPERMPS(d, k, dHi)
		c.VPSUBD(colLo, mLo, mLo)
		c.VPSUBD(colHi, mHi, mHi)
		c.Load(c.Param("height"), rowsHere)
		c.SUBQ(ph2, rowsHere)
		for r := 0; r < 2; r++ {
			row := operand.Mem{Base: dxp}
			var rr operand.Op = zero
			if r == 1 {
				row = operand.Mem{Base: dxp, Index: width, Scale: 4}
				rr = rw
				c.CMPQ(rowsHere, operand.U8(2))
				c.JLT(operand.LabelRef("next" + tag))
			}
			hi := row
			hi.Disp += 32
			c.VPCMPEQD(rr, mLo, tmp)
			c.VANDPS(dLo, tmp, tmp)
			store(tmp, 0, row)
			c.VPCMPEQD(rr, mHi, tmp)
			c.VANDPS(dHi, tmp, tmp)
			store(tmp, 1, hi)
		}
		c.Label("next" + tag)
		rowStep(c, dxp, dyp, mp, width, t)
		c.VPADDD(rw, colLo, colLo)
		c.VPADDD(rw, colLo, colLo)
		c.VPADDD(rw, colHi, colHi)
		c.VPADDD(rw, colHi, colHi)
		outRowLoop(c, ph2, t, "outRow"+tag)
		// The row past the windows, when the plane has one.
		c.Load(c.Param("height"), t)
		c.CMPQ(ph2, t)
		c.JGE(operand.LabelRef("stripEnd"))
		store(zero, 0, operand.Mem{Base: dxp})
		store(zero, 1, operand.Mem{Base: dxp, Disp: 32})
	}
	fullOrPartial(c, nl, width, cb, t, 16, rows)
	c.ADDQ(operand.U8(16), cb)
	c.SUBQ(operand.U8(8), nl)
	c.CMPQ(cb, width)
	c.JLT(operand.LabelRef("strip"))
	nextPlane(c, dxS, dyS, mS, n, t, "plane")
	finish(c)

	// Planes 8 wide: two rows of outputs give four input rows, one
	// vector each.
	off, lim := ph2, rowsHere
	narrowGroups(c, n, off, lim, true)
	dup := []reg.VecPhysical{reg.Y12, reg.Y13}
	c.VMOVDQU(tab.Offset(352), dup[0])
	c.VMOVDQU(tab.Offset(384), dup[1])
	c.Label("narrowGroup")
	c.VMOVDQU(operand.Mem{Base: mS}, m)
	c.VMOVUPS(operand.Mem{Base: dyS}, d)
	c.VADDPS(zero, d, d)
	c.VMOVQ(off, reg.X2)
	c.VPBROADCASTD(reg.X2, mLo)
	c.VPSUBD(mLo, m, m)
	for j := 0; j < 4; j++ {
		c.VPERMD(m, dup[j/2], mLo)
		c.VPERMPS(d, dup[j/2], dLo)
		c.VPCMPEQD(tab.Offset(928+32*j), mLo, tmp)
		c.VANDPS(dLo, tmp, tmp)
		c.VMOVUPS(tmp, operand.Mem{Base: dxS, Disp: 32 * j})
	}
	narrowNext(c, dxS, dyS, mS, off, lim, n, 2)
}
