package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The plane kernels of 3×3, stride-2 max pooling without padding (the
// overlapping pooling of CIFAR-10 quick and AlexNet).
//
// The gradient kernels write each input gradient once instead of
// scattering the output gradients: an input at column c of a window row
// is the column j = c − 2·pw of the windows of outputs pw = ⌊c/2⌋ (j = 0
// or 1) and, for even c, pw = c/2 − 1 (j = 2). A block of outputs is
// spread over its columns twice by lane permutes, once as the outputs
// ⌊c/2⌋ ("A") and once as c/2 − 1 ("B"); an input column receives the
// gradient of such an output when the output's argmax is that input. An
// input row 2·ph is the last window row of output row ph − 1 and the
// first of ph, so it is written with ph − 1's gradients first and read
// back to add ph's. The additions are those of the scalar loop over the
// outputs in order (from a cleared plane): per input, the outputs whose
// window covers it in row-major order, (ph−1, pw−1), (ph−1, pw),
// (ph, pw−1), (ph, pw); adding +0 for an output that does not choose the
// input changes nothing, as a sum from +0 is never −0.

func buildPoolPlane(c *build.Context) {
	tab := poolPlaneConsts(c)
	maxPool3s2_512(c, tab, false)
	maxPool3s2_512(c, tab, true)
	maxPool3s2_256(c, tab)
	maxPoolBack3s2_512(c, tab, false)
	maxPoolBack3s2_256(c, tab, false)
	maxPoolBack3s2_512(c, tab, true)
	maxPoolBack3s2_256(c, tab, true)
	avePool3s2_512(c, tab)
	avePool3s2_256(c, tab)
	avePoolBack3s2_512(c, tab)
	avePoolBack3s2_256(c, tab)
}

// poolPlaneConsts emits the lane tables: at 0, the 32 lanes 0, 0, 1, 1,
// …, 15, 15 (output ⌊c/2⌋ of column c); at 128, the 32 lanes 15, 15,
// 16, 16, …, 30, 30 (output c/2 − 1 of column c, lane 15 being the
// previous block's last output when the tables are the previous block's
// outputs and this block's); at 256, the lanes 0 … 15 (column offsets).
func poolPlaneConsts(c *build.Context) operand.Mem {
	m := c.StaticGlobal("poolPlaneConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 32; l++ {
		c.AddDatum(4*l, operand.U32(l/2))
	}
	for l := 0; l < 32; l++ {
		c.AddDatum(128+4*l, operand.U32(15+l/2))
	}
	for l := 0; l < 16; l++ {
		c.AddDatum(256+4*l, operand.U32(l))
	}
	// At 320 and 384: the AVX2 tables of blocks of 8 outputs, A (0, 0,
	// 1, 1, …, 7, 7) and B (c/2 − 1; column 0 takes the previous block's
	// last output apart); at 448, 480, 512: eight 8s, 16s and 7s.
	for l := 0; l < 16; l++ {
		c.AddDatum(320+4*l, operand.U32(l/2))
	}
	for l := 0; l < 16; l++ {
		c.AddDatum(384+4*l, operand.U32(max(0, l/2-1)))
	}
	for i, v := range []uint32{8, 16, 7} {
		for l := 0; l < 8; l++ {
			c.AddDatum(448+32*i+4*l, operand.U32(v))
		}
	}
	// At 544, 608: the lanes 0, 2, …, 30 and 1, 3, …, 31; at 672: the
	// AVX2 forward kernel's column offsets 2·l of its lane order (0, 1,
	// 4, 5, 2, 3, 6, 7); at 704: −MaxFloat32, 1, 2, −1, eight each.
	for l := 0; l < 16; l++ {
		c.AddDatum(544+4*l, operand.U32(2*l))
	}
	for l := 0; l < 16; l++ {
		c.AddDatum(608+4*l, operand.U32(2*l+1))
	}
	for l, o := range []int{0, 1, 4, 5, 2, 3, 6, 7} {
		c.AddDatum(672+4*l, operand.U32(2*o))
	}
	for i, v := range []uint32{math.Float32bits(-math.MaxFloat32), 1, 2, 0xffffffff} {
		for l := 0; l < 8; l++ {
			c.AddDatum(704+32*i+4*l, operand.U32(v))
		}
	}
	// At 832: eight int32 3s.
	for l := 0; l < 8; l++ {
		c.AddDatum(832+4*l, operand.U32(3))
	}
	return m
}

// Comparison predicate of VCMPPS: less than or equal, ordered.
const cmpLEOQ = 0x12

// maxPool3s2_512 emits maxPool3s2AVX512, the forward pass of a 3×3,
// stride-2 max pooling without padding of one height×width plane into
// outH×outW outputs, windows clipped to the plane. It takes strips of 16
// output columns, top to bottom. Each input row of a strip is reduced
// along its window columns first: the even columns 2·pw (a value not
// greater than −MaxFloat32, or NaN, becoming −MaxFloat32, which is never
// chosen), then the odd 2·pw+1 and the even 2·pw+2 where strictly
// greater, the columns past the plane read as −MaxFloat32. An output is
// then the first of its window rows' results that is strictly greater
// than those above it, and −1 marks an output with nothing greater than
// −MaxFloat32. This is Caffe's choice: the first largest value in
// row-major window order. Input row 2·ph+2, the last window row of output
// row ph, is reduced once for ph and ph+1.
//
// With over it emits maxPool3s2OverAVX512, which loads whole vectors and
// puts −MaxFloat32 in the lanes past the plane's columns by register
// blends: a masked load costs several times a plain one on Zen 5 (CIFAR-10
// quick's pool1, 32 columns, ran about 3× slower with them), but the plain
// loads read up to 33 floats past a row's end, which must lie inside the
// caller's memory (the next plane); and it stores by whole vectors too
// (see overStores).
func maxPool3s2_512(c *build.Context, tab operand.Mem, over bool) {
	if over {
		poolFunc(c, "maxPool3s2OverAVX512", "func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)", "maxPool3s2OverAVX512 is maxPool3s2AVX512 by whole vectors: it reads up to 33 floats past each row of x and, on planes of at most 16 outputs a row, writes up to 15 past each row of y and mask, which must be readable and written again afterwards.")
	} else {
		poolFunc(c, "maxPool3s2AVX512", "func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)", "maxPool3s2AVX512 sets y and mask to the maxima and argmaxes (Caffe's: the first largest value greater than -MaxFloat32 in row-major order, else -MaxFloat32 and -1) of the 3×3 windows, stride 2, of the height×width plane x, clipped to it, for outH×outW outputs whose windows start inside it.")
	}
	c.Label("plane")
	yS, mS, xS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	xp, yp, mp, cb, nl := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14
	t := reg.RAX
	loadParams(c, []string{"y", "mask", "x", "width", "outW"}, yS, mS, xS, width, nl)
	c.XORQ(cb, cb)

	hv0, hr0, hv1, hr1, hv2, hr2 := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5
	v0, v1, u0, u1, o, e2 := reg.Z6, reg.Z7, reg.Z8, reg.Z9, reg.Z10, reg.Z11
	best, rel, idx := reg.Z12, reg.Z13, reg.Z14
	base := reg.Z23
	negMax, evens, odds, minus1, one, two, rw1, rw2 := reg.Z31, reg.Z30, reg.Z29, reg.Z28, reg.Z27, reg.Z26, reg.Z25, reg.Z24
	c.VBROADCASTSS(tab.Offset(704), negMax)
	c.VMOVDQU32(tab.Offset(544), evens)
	c.VMOVDQU32(tab.Offset(608), odds)
	c.VPTERNLOGD(operand.U8(0xff), minus1, minus1, minus1)
	c.VPBROADCASTD(tab.Offset(736), one)
	c.VPBROADCASTD(tab.Offset(768), two)
	c.VPBROADCASTD(reg.R8L, rw1)
	c.VPADDD(rw1, rw1, rw2)

	c.Label("strip")
	// K1: the strip's outputs; K3, K4, K5, K6: the columns inside the
	// plane of its loads at columns 32b, 32b+16, 32b+2 and 32b+18.
	stripMasks512(c, nl, width, cb, t, []int{0, 16, 2, 18}, []reg.Register{reg.K3, reg.K4, reg.K5, reg.K6})
	c.MOVQ(cb, t)
	c.VPBROADCASTD(reg.EAX, base)
	c.VPADDD(evens, base, base)
	c.MOVQ(xS, xp)
	c.MOVQ(yS, yp)
	c.MOVQ(mS, mp)
	c.XORQ(ph2, ph2)

	// horiz reduces the input row at row along its window columns into
	// hv (values) and hr (window column 0, 1 or 2).
	horiz := func(row operand.Mem, hv, hr reg.VecPhysical) {
		at := func(off int) operand.Mem { m := row; m.Disp += off; return m }
		for i, r := range []reg.VecPhysical{v0, v1, u0, u1} {
			k := []reg.Register{reg.K3, reg.K4, reg.K5, reg.K6}[i]
			if over {
				c.VMOVUPS(at([]int{0, 64, 8, 72}[i]), r)
				c.VBLENDMPS(r, negMax, k, r)
				continue
			}
			c.VMOVAPS(negMax, r)
			c.VMOVUPS(at([]int{0, 64, 8, 72}[i]), k, r)
		}
		c.VMOVDQA32(evens, hv)
		c.VPERMI2PS(v1, v0, hv)
		c.VMAXPS(negMax, hv, hv)
		c.VMOVDQA32(odds, o)
		c.VPERMI2PS(v1, v0, o)
		c.VMOVDQA32(evens, e2)
		c.VPERMI2PS(u1, u0, e2)
		c.VPXORD(hr, hr, hr)
		takeGreater512(c, hv, hr, o, one)
		takeGreater512(c, hv, hr, e2, two)
	}
	horiz(operand.Mem{Base: xp}, hv0, hr0)
	c.Label("outRow")
	c.Load(c.Param("height"), rowsHere)
	c.SUBQ(ph2, rowsHere)
	c.VMOVAPS(hv0, best)
	c.VMOVDQA32(hr0, rel)
	c.CMPQ(rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("store"))
	horiz(operand.Mem{Base: xp, Index: width, Scale: 4}, hv1, hr1)
	c.VCMPPS(operand.U8(cmpGTOQ), best, hv1, reg.K2)
	c.VMOVAPS(hv1, reg.K2, best)
	c.VPADDD(rw1, hr1, reg.K2, rel)
	c.CMPQ(rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("store"))
	horiz(operand.Mem{Base: xp, Index: width, Scale: 8}, hv2, hr2)
	c.VCMPPS(operand.U8(cmpGTOQ), best, hv2, reg.K2)
	c.VMOVAPS(hv2, reg.K2, best)
	c.VPADDD(rw2, hr2, reg.K2, rel)
	c.Label("store")
	storeMaxStrip(c, over, negMax, best, minus1, idx, base, rel, cb, nl, yp, mp)
	c.VMOVAPS(hv2, hv0)
	c.VMOVDQA32(hr2, hr0)
	rowStep(c, xp, yp, mp, width, t)
	c.VPADDD(rw2, base, base)
	outRowLoop(c, ph2, t, "outRow")

	c.ADDQ(operand.U32(128), xS)
	c.ADDQ(operand.U8(64), yS)
	c.ADDQ(operand.U8(64), mS)
	c.ADDQ(operand.U8(32), cb)
	c.SUBQ(operand.U8(16), nl)
	c.JG(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"y", false}, planePtr{"mask", false}, planePtr{"x", true})
	c.VZEROUPPER()
	c.RET()
}

// maxPool3s2_256 emits maxPool3s2AVX2, maxPool3s2AVX512 for AVX2: strips
// of 8 outputs, whose even and odd window columns VSHUFPS separates
// within 128-bit lanes, so that the lanes hold the outputs 0, 1, 4, 5, 2,
// 3, 6, 7 until VPERMQ puts them in order at the store. The opmasks of
// the loads and stores are vectors kept on the stack.
func maxPool3s2_256(c *build.Context, tab operand.Mem) {
	poolFunc(c, "maxPool3s2AVX2", "func(y *float32, mask *int32, x *float32, planes, height, width, outH, outW int)", "maxPool3s2AVX2 is maxPool3s2AVX512 for AVX2.")
	c.Label("plane")
	yS, mS, xS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	xp, yp, mp, cb, nl := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14
	t := reg.RAX
	loadParams(c, []string{"y", "mask", "x", "width", "outW"}, yS, mS, xS, width, nl)
	c.XORQ(cb, cb)
	// Locals: the masks of the stores and of the loads at columns 16b,
	// 16b+8, 16b+2, 16b+10; width and 2·width in every lane.
	loc := c.AllocLocal(7 * 32)
	masks := func(i int) operand.Mem { return loc.Offset(32 * i) }
	rw1, rw2 := loc.Offset(160), loc.Offset(192)

	hv0, hr0, hv1, hr1 := reg.Y0, reg.Y1, reg.Y2, reg.Y3
	v0, v1, u0, u1 := reg.Y4, reg.Y5, reg.Y6, reg.Y7
	best, rel, k, base := reg.Y8, reg.Y9, reg.Y10, reg.Y11
	negMax := reg.Y15
	c.VBROADCASTSS(tab.Offset(704), negMax)
	c.VMOVQ(width, reg.X10)
	c.VPBROADCASTD(reg.X10, k)
	c.VMOVDQU(k, rw1)
	c.VPADDD(k, k, k)
	c.VMOVDQU(k, rw2)

	c.Label("strip")
	stripMasks256(c, nl, width, cb, t, reg.X10, k, tab.Offset(256), masks, []int{0, 8, 2, 10})
	c.VMOVQ(cb, reg.X10)
	c.VPBROADCASTD(reg.X10, base)
	c.VPADDD(tab.Offset(672), base, base)
	c.MOVQ(xS, xp)
	c.MOVQ(yS, yp)
	c.MOVQ(mS, mp)
	c.XORQ(ph2, ph2)

	horiz := func(row operand.Mem, hv, hr reg.VecPhysical, full bool) {
		at := func(off int) operand.Mem { m := row; m.Disp += off; return m }
		for i, r := range []reg.VecPhysical{v0, v1, u0, u1} {
			if full {
				c.VMOVUPS(at([]int{0, 32, 8, 40}[i]), r)
				continue
			}
			c.VMOVDQU(masks(1+i), k)
			c.VMASKMOVPS(at([]int{0, 32, 8, 40}[i]), k, r)
			c.VBLENDVPS(k, r, negMax, r)
		}
		c.VSHUFPS(operand.U8(0x88), v1, v0, hv)
		c.VMAXPS(negMax, hv, hv)
		c.VSHUFPS(operand.U8(0xdd), v1, v0, v0) // odd columns
		c.VSHUFPS(operand.U8(0x88), u1, u0, u0) // columns 2·pw+2
		c.VCMPPS(operand.U8(cmpGTOQ), hv, v0, k)
		c.VBLENDVPS(k, v0, hv, hv)
		c.VANDPS(tab.Offset(736), k, hr)
		c.VCMPPS(operand.U8(cmpGTOQ), hv, u0, k)
		c.VBLENDVPS(k, u0, hv, hv)
		c.VBLENDVPS(k, tab.Offset(768), hr, hr)
	}
	// rows pools the strip's output rows: with full, a strip of 8
	// outputs whose 17 window columns lie inside the plane, by plain loads
	// and stores.
	rows := func(full bool, tag string) {
		horiz(operand.Mem{Base: xp}, hv0, hr0, full)
		c.Label("outRow" + tag)
		c.Load(c.Param("height"), rowsHere)
		c.SUBQ(ph2, rowsHere)
		c.VMOVAPS(hv0, best)
		c.VMOVDQA(hr0, rel)
		c.CMPQ(rowsHere, operand.U8(2))
		c.JLT(operand.LabelRef("store" + tag))
		horiz(operand.Mem{Base: xp, Index: width, Scale: 4}, hv1, hr1, full)
		c.VCMPPS(operand.U8(cmpGTOQ), best, hv1, k)
		c.VBLENDVPS(k, hv1, best, best)
		c.VPADDD(rw1, hr1, hr1)
		c.VBLENDVPS(k, hr1, rel, rel)
		c.CMPQ(rowsHere, operand.U8(3))
		c.JLT(operand.LabelRef("store" + tag))
		horiz(operand.Mem{Base: xp, Index: width, Scale: 8}, hv0, hr0, full)
		c.VCMPPS(operand.U8(cmpGTOQ), best, hv0, k)
		c.VBLENDVPS(k, hv0, best, best)
		c.VPADDD(rw2, hr0, hr1)
		c.VBLENDVPS(k, hr1, rel, rel)
		c.Label("store" + tag)
		c.VPADDD(base, rel, rel)
		c.VCMPPS(operand.U8(cmpLEOQ), negMax, best, k)
		c.VBLENDVPS(k, tab.Offset(800), rel, rel)
		storeOutputs256(c, best, rel, k, yp, mp, masks(0), full)
		rowStep(c, xp, yp, mp, width, t)
		c.VPADDD(rw2, base, base)
		outRowLoop(c, ph2, t, "outRow"+tag)

	}
	// Full strips: 8 outputs and the columns [16b, 16b+18) inside.
	fullOrPartial(c, nl, width, cb, t, 18, rows)
	c.ADDQ(operand.U8(64), xS)
	c.ADDQ(operand.U8(32), yS)
	c.ADDQ(operand.U8(32), mS)
	c.ADDQ(operand.U8(16), cb)
	c.SUBQ(operand.U8(8), nl)
	c.JG(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"y", false}, planePtr{"mask", false}, planePtr{"x", true})
	c.VZEROUPPER()
	c.RET()
}

// maxPoolBack3s2_512 emits maxPoolBack3s2AVX512: the gradient of a 3×3,
// stride-2 max pooling without padding of one height×width plane from its
// outH×outW output gradients dy and argmax mask. It takes strips of 16
// outputs, whose windows cover the 32 input columns [32b, 32b+32) (and
// column 32b+32, which the next strip writes), top to bottom: output row
// ph writes input rows 2·ph (completing the sums that row ph − 1 began)
// and 2·ph+1, and begins row 2·ph+2 in registers. The rows past 2·outH
// are left to the caller. With nt it emits maxPoolBack3s2NTAVX512, which
// writes the rows by non-temporal stores (VMOVNTPS, then SFENCE): for a
// width that is a multiple of 32 and a 64-byte aligned dx, whose strips
// are then whole and aligned.
func maxPoolBack3s2_512(c *build.Context, tab operand.Mem, nt bool) {
	if nt {
		poolFunc(c, "maxPoolBack3s2NTAVX512", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack3s2NTAVX512 is maxPoolBack3s2AVX512 by non-temporal stores, for a width that is a multiple of 32 and dx aligned to 64 bytes.")
	} else {
		poolFunc(c, "maxPoolBack3s2AVX512", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack3s2AVX512 sets the rows [0, min(height, 2*outH+1)) of the height×width plane dx to the gradient of a 3×3, stride-2 max pooling without padding: per element, the sum in output order, from zero, of the dy[i] whose mask[i] (-1 or inside output i's window) is the element.")
	}
	c.Label("plane")
	// store writes a row's 32 columns, lo and hi, at row.
	store := func(lo, hi reg.VecPhysical, row operand.Mem) {
		hiRow := row
		hiRow.Disp += 64
		if nt {
			c.VMOVNTPS(lo, row)
			c.VMOVNTPS(hi, hiRow)
			return
		}
		storePair(c, reg.R15, lo, hi, row)
	}
	dxS, dyS, mS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	dxp, dyp, mp, cb, nl := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14
	t := reg.RAX
	loadParams(c, []string{"dx", "dy", "mask", "width", "outW"}, dxS, dyS, mS, width, nl)
	c.XORQ(cb, cb)

	m, d := reg.Z0, reg.Z1
	maLo, maHi, mbLo, mbHi := reg.Z2, reg.Z3, reg.Z4, reg.Z5
	daLo, daHi, dbLo, dbHi := reg.Z6, reg.Z7, reg.Z8, reg.Z9
	prevM, prevD := reg.Z10, reg.Z11
	colLo, colHi := reg.Z12, reg.Z13
	accLo, accHi, pendLo, pendHi := reg.Z14, reg.Z15, reg.Z27, reg.Z28
	rw := []reg.VecPhysical{reg.Z16, reg.Z17, reg.Z18} // 0, width, 2·width
	dupLo, dupHi, bLo, bHi := reg.Z19, reg.Z20, reg.Z21, reg.Z22
	minus1, iota, c16 := reg.Z23, reg.Z24, reg.Z25

	c.VMOVDQU32(tab, dupLo)
	c.VMOVDQU32(tab.Offset(64), dupHi)
	c.VMOVDQU32(tab.Offset(128), bLo)
	c.VMOVDQU32(tab.Offset(192), bHi)
	c.VMOVDQU32(tab.Offset(256), iota)
	c.VPTERNLOGD(operand.U8(0xff), minus1, minus1, minus1)
	c.VPXORD(rw[0], rw[0], rw[0])
	c.VPBROADCASTD(reg.R8L, rw[1])
	c.VPADDD(rw[1], rw[1], rw[2])
	c.VPBROADCASTD(tab.Offset(480), c16)
	// K2: the even columns, the only ones the B outputs reach.
	c.MOVL(operand.U32(0x5555), reg.EAX)
	c.KMOVW(reg.EAX, reg.K2)

	// (setMask reads the count's low byte: each is clamped to [0, 16].)
	c.Label("strip")
	// K1: the strip's outputs; K3, K4: its columns inside the plane.
	stripMasks512(c, nl, width, cb, t, []int{0, 16}, []reg.Register{reg.K3, reg.K4})
	colsLeft(c, reg.R15, width, cb)
	// colLo, colHi: each column's offset in the plane, in row 2·ph.
	c.MOVQ(cb, t)
	c.VPBROADCASTD(reg.EAX, colLo)
	c.VPADDD(iota, colLo, colLo)
	c.VPADDD(c16, colLo, colHi)
	c.VPXORD(pendLo, pendLo, pendLo)
	c.VPXORD(pendHi, pendHi, pendHi)
	c.MOVQ(dxS, dxp)
	c.MOVQ(dyS, dyp)
	c.MOVQ(mS, mp)
	c.XORQ(ph2, ph2)

	c.Label("outRow")
	// rowsHere: the output row's window rows inside the plane (1 to 3).
	c.Load(c.Param("height"), rowsHere)
	c.SUBQ(ph2, rowsHere)
	// A row of 16 outputs by plain loads, fewer under K1.
	wholeOrMasked(c, nl, func() {
		c.VMOVDQU32(operand.Mem{Base: mp}, m)
		c.VMOVUPS(operand.Mem{Base: dyp}, d)
	}, func() {
		c.VMOVDQA32(minus1, m)
		c.VMOVDQU32(operand.Mem{Base: mp}, reg.K1, m)
		c.VMOVUPS_Z(operand.Mem{Base: dyp}, reg.K1, d)
	})
	// The previous strip's last output of this row, for column 32b.
	c.VMOVDQA32(minus1, prevM)
	c.VPXORD(prevD, prevD, prevD)
	c.TESTQ(cb, cb)
	c.JZ(operand.LabelRef("first"))
	c.VPBROADCASTD(operand.Mem{Base: mp, Disp: -4}, prevM)
	c.VBROADCASTSS(operand.Mem{Base: dyp, Disp: -4}, prevD)
	c.Label("first")
	// A: output ⌊c/2⌋ of column c; B: output c/2 − 1.
	c.VPERMD(m, dupLo, maLo)
	c.VPERMD(m, dupHi, maHi)
	c.VPERMPS(d, dupLo, daLo)
	c.VPERMPS(d, dupHi, daHi)
	c.VPERMT2D(m, bLo, prevM)
	c.VPERMD(m, bHi, mbHi)
	c.VPERMT2PS(d, bLo, prevD)
	c.VPERMPS(d, bHi, dbHi)
	mbLo, dbLo = prevM, prevD
	// The argmaxes relative to each column of row 2·ph: 0, width or
	// 2·width when the output chose that column of window row 0, 1 or 2.
	c.VPSUBD(colLo, maLo, maLo)
	c.VPSUBD(colHi, maHi, maHi)
	c.VPSUBD(colLo, mbLo, mbLo)
	c.VPSUBD(colHi, mbHi, mbHi)
	for r := 0; r < 3; r++ {
		row := operand.Mem{Base: dxp}
		lo, hi := accLo, accHi
		switch r {
		case 0:
			c.VMOVAPS(pendLo, accLo)
			c.VMOVAPS(pendHi, accHi)
		case 1:
			row = operand.Mem{Base: dxp, Index: width, Scale: 4}
			c.CMPQ(rowsHere, operand.U8(2))
			c.JLT(operand.LabelRef("next"))
		case 2:
			c.CMPQ(rowsHere, operand.U8(3))
			c.JLT(operand.LabelRef("next"))
			lo, hi = pendLo, pendHi
		}
		if r > 0 {
			c.VPXORD(lo, lo, lo)
			c.VPXORD(hi, hi, hi)
		}
		c.VPCMPEQD(rw[r], mbLo, reg.K2, reg.K5)
		c.VPCMPEQD(rw[r], mbHi, reg.K2, reg.K6)
		c.VADDPS(dbLo, lo, reg.K5, lo)
		c.VADDPS(dbHi, hi, reg.K6, hi)
		c.VPCMPEQD(rw[r], maLo, reg.K5)
		c.VPCMPEQD(rw[r], maHi, reg.K6)
		c.VADDPS(daLo, lo, reg.K5, lo)
		c.VADDPS(daHi, hi, reg.K6, hi)
		if r < 2 {
			store(lo, hi, row)
		}
	}
	c.Label("next")
	rowStep(c, dxp, dyp, mp, width, t)
	c.VPADDD(rw[2], colLo, colLo)
	c.VPADDD(rw[2], colHi, colHi)
	outRowLoop(c, ph2, t, "outRow")
	// Row 2·outH, when inside the plane, has only the last row's sums.
	c.CMPQ(rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("stripEnd"))
	store(pendLo, pendHi, operand.Mem{Base: dxp})
	c.Label("stripEnd")
	c.ADDQ(operand.U32(128), dxS)
	c.ADDQ(operand.U8(64), dyS)
	c.ADDQ(operand.U8(64), mS)
	c.ADDQ(operand.U8(32), cb)
	c.SUBQ(operand.U8(16), nl)
	c.CMPQ(cb, width)
	c.JLT(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"dx", true}, planePtr{"dy", false}, planePtr{"mask", false})
	if nt {
		c.SFENCE()
	}
	c.VZEROUPPER()
	c.RET()
}

// maxPoolBack3s2_256 emits maxPoolBack3s2AVX2, maxPoolBack3s2AVX512 for
// AVX2: strips of 8 outputs over 16 input columns, taken as two halves of
// 8 columns; the selected gradients are masked by AND and added (+0 for
// the others, which changes no sum). With nt it emits
// maxPoolBack3s2NTAVX2, whose whole strips store by VMOVNTPS (then
// SFENCE): for a width that is a multiple of 8 and a 32-byte aligned dx.
func maxPoolBack3s2_256(c *build.Context, tab operand.Mem, nt bool) {
	if nt {
		poolFunc(c, "maxPoolBack3s2NTAVX2", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack3s2NTAVX2 is maxPoolBack3s2AVX2 by non-temporal stores in whole strips, for a width that is a multiple of 8 and dx aligned to 32 bytes.")
	} else {
		poolFunc(c, "maxPoolBack3s2AVX2", "func(dx *float32, dy *float32, mask *int32, planes, height, width, outH, outW int)", "maxPoolBack3s2AVX2 is maxPoolBack3s2AVX512 for AVX2.")
	}
	c.Label("plane")
	dxS, dyS, mS := reg.RDI, reg.RSI, reg.RBX
	width, rowsHere, ph2 := reg.R8, reg.R9, reg.R10
	dxp, dyp, mp, cb, nl := reg.R11, reg.R12, reg.R13, reg.RCX, reg.R14
	t := reg.RAX
	loadParams(c, []string{"dx", "dy", "mask", "width", "outW"}, dxS, dyS, mS, width, nl)
	c.XORQ(cb, cb)

	m, d, colBase, minus1 := reg.Y0, reg.Y1, reg.Y2, reg.Y3
	ma, mb, da, db, acc, tmp := reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y9
	pend := []reg.VecPhysical{reg.Y10, reg.Y11}
	// Locals: 0, width and 2·width in every lane; the lanes of the
	// strip's outputs; its columns inside the plane (two halves).
	loc := c.AllocLocal(6 * 32)
	rw := func(r int) operand.Mem { return loc.Offset(32 * r) }
	lanes, st := loc.Offset(96), func(h int) operand.Mem { return loc.Offset(128 + 32*h) }
	c.VPCMPEQD(minus1, minus1, minus1)
	c.VPXOR(tmp, tmp, tmp)
	c.VMOVDQU(tmp, rw(0))
	c.VMOVQ(width, reg.X9)
	c.VPBROADCASTD(reg.X9, tmp)
	c.VMOVDQU(tmp, rw(1))
	c.VPADDD(tmp, tmp, tmp)
	c.VMOVDQU(tmp, rw(2))

	c.Label("strip")
	backMasks256(c, nl, width, cb, t, reg.X9, acc, tmp, tab.Offset(256), lanes, st(0), st(1))
	c.VMOVQ(cb, reg.X9)
	c.VPBROADCASTD(reg.X9, colBase)
	c.VPADDD(tab.Offset(256), colBase, colBase)
	c.VXORPS(pend[0], pend[0], pend[0])
	c.VXORPS(pend[1], pend[1], pend[1])
	c.MOVQ(dxS, dxp)
	c.MOVQ(dyS, dyp)
	c.MOVQ(mS, mp)
	c.XORQ(ph2, ph2)

	// rows computes the strip's rows: with full, a strip of 8 outputs
	// whose 16 columns lie inside the plane, by plain loads and stores.
	rows := func(full bool, tag string) {
		store := func(v reg.VecPhysical, h int, m operand.Mem) {
			if full && nt {
				c.VMOVNTPS(v, m)
				return
			}
			if full {
				c.VMOVUPS(v, m)
				return
			}
			c.VMOVDQU(st(h), tmp)
			c.VMASKMOVPS(v, tmp, m)
		}
		c.Label("outRow" + tag)
		c.Load(c.Param("height"), rowsHere)
		c.SUBQ(ph2, rowsHere)
		if full {
			c.VMOVDQU(operand.Mem{Base: mp}, m)
			c.VMOVUPS(operand.Mem{Base: dyp}, d)
		} else {
			c.VMOVDQU(lanes, tmp)
			c.VPMASKMOVD(operand.Mem{Base: mp}, tmp, m)
			c.VBLENDVPS(tmp, m, minus1, m)
			c.VMASKMOVPS(operand.Mem{Base: dyp}, tmp, d)
		}
		for h := 0; h < 2; h++ {
			next := "half1" + tag
			if h == 1 {
				next = "next" + tag
			}
			c.VMOVDQU(tab.Offset(320+32*h), tmp)
			c.VPERMD(m, tmp, ma)
			c.VPERMPS(d, tmp, da)
			c.VMOVDQU(tab.Offset(384+32*h), tmp)
			c.VPERMD(m, tmp, mb)
			c.VPERMPS(d, tmp, db)
			if h == 0 {
				// Column 16b: the previous strip's last output of the row.
				c.TESTQ(cb, cb)
				c.JZ(operand.LabelRef("first" + tag))
				c.VPBROADCASTD(operand.Mem{Base: mp, Disp: -4}, tmp)
				c.VPBLENDD(operand.U8(0x01), tmp, mb, mb)
				c.VBROADCASTSS(operand.Mem{Base: dyp, Disp: -4}, tmp)
				c.VBLENDPS(operand.U8(0x01), tmp, db, db)
				c.JMP(operand.LabelRef("carried" + tag))
				c.Label("first" + tag)
				c.VPBLENDD(operand.U8(0x01), minus1, mb, mb)
				c.Label("carried" + tag)
			}
			c.VPBLENDD(operand.U8(0xaa), minus1, mb, mb)
			c.VPSUBD(colBase, ma, ma)
			c.VPSUBD(colBase, mb, mb)
			if h == 1 {
				c.VPSUBD(tab.Offset(448), ma, ma)
				c.VPSUBD(tab.Offset(448), mb, mb)
			}
			for r := 0; r < 3; r++ {
				row := operand.Mem{Base: dxp, Disp: 32 * h}
				a := acc
				switch r {
				case 0:
					c.VMOVAPS(pend[h], acc)
				case 1:
					row = operand.Mem{Base: dxp, Index: width, Scale: 4, Disp: 32 * h}
					c.CMPQ(rowsHere, operand.U8(2))
					c.JLT(operand.LabelRef(next))
					c.VXORPS(acc, acc, acc)
				case 2:
					c.CMPQ(rowsHere, operand.U8(3))
					c.JLT(operand.LabelRef(next))
					a = pend[h]
					c.VXORPS(a, a, a)
				}
				c.VPCMPEQD(rw(r), mb, tmp)
				c.VANDPS(db, tmp, tmp)
				c.VADDPS(tmp, a, a)
				c.VPCMPEQD(rw(r), ma, tmp)
				c.VANDPS(da, tmp, tmp)
				c.VADDPS(tmp, a, a)
				if r < 2 {
					store(a, h, row)
				}
			}
			c.Label(next)
		}
		rowStep(c, dxp, dyp, mp, width, t)
		c.VPADDD(rw(2), colBase, colBase)
		outRowLoop(c, ph2, t, "outRow"+tag)
		c.CMPQ(rowsHere, operand.U8(3))
		c.JLT(operand.LabelRef("stripEnd"))
		store(pend[0], 0, operand.Mem{Base: dxp})
		store(pend[1], 1, operand.Mem{Base: dxp, Disp: 32})
	}
	fullOrPartial(c, nl, width, cb, t, 16, rows)
	c.ADDQ(operand.U8(64), dxS)
	c.ADDQ(operand.U8(32), dyS)
	c.ADDQ(operand.U8(32), mS)
	c.ADDQ(operand.U8(16), cb)
	c.SUBQ(operand.U8(8), nl)
	c.CMPQ(cb, width)
	c.JLT(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"dx", true}, planePtr{"dy", false}, planePtr{"mask", false})
	if nt {
		c.SFENCE()
	}
	c.VZEROUPPER()
	c.RET()
}

// The average pooling kernels (3×3, stride 2, no padding) keep Caffe's
// order of additions: a window's sum from zero in row-major order, then a
// division by the window's size clipped to the plane (rows × columns);
// the gradient as the layer's spread rows, each output gradient divided by
// its window's size and added along its window's columns from zero in the
// order of the outputs, and each plane row the sum of the spread rows of
// the (one or two) output rows whose windows cover it, in that order. The
// columns past the plane read as +0, which changes no sum from +0.

// aveCommon loads the arguments of the AVE kernels and returns the
// registers of the strip loop.
type aveRegs struct {
	dstS, srcS, width, rowsHere, ph2, dstp, srcp, cb, nl, t reg.Register
}

func aveArgs(c *build.Context, dst, src string) aveRegs {
	r := aveRegs{reg.RDI, reg.RSI, reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.RCX, reg.R14, reg.RAX}
	c.Load(c.Param(dst), r.dstS)
	c.Load(c.Param(src), r.srcS)
	c.Load(c.Param("width"), r.width)
	c.Load(c.Param("outW"), r.nl)
	c.XORQ(r.cb, r.cb)
	return r
}

// rowsFloat sets the low float of x to float32(rowsHere·mul) and
// broadcasts it to v.
func rowsFloat(c *build.Context, r aveRegs, mul int, x, v reg.VecPhysical) {
	c.MOVQ(r.rowsHere, r.t)
	if mul == 3 {
		c.LEAQ(operand.Mem{Base: r.t, Index: r.t, Scale: 2}, r.t)
	}
	c.VCVTSI2SSQ(r.t, x, x)
	c.VBROADCASTSS(x, v)
}

// avePool3s2_512 emits avePool3s2AVX512: strips of 16 outputs, top to
// bottom; each new input row's window columns are separated by VPERMI2PS
// as in maxPool3s2AVX512, and the sum of input row 2·ph+2's columns (from
// zero) is the start of output row ph+1's sum.
func avePool3s2_512(c *build.Context, tab operand.Mem) {
	poolFunc(c, "avePool3s2AVX512", "func(y *float32, x *float32, planes, height, width, outH, outW int)", "avePool3s2AVX512 sets y to the averages of the 3×3 windows, stride 2, of the height×width plane x clipped to it (each window's sum from zero in row-major order, divided by its clipped size), for outH×outW outputs whose windows start inside it.")
	c.Label("plane")
	r := aveArgs(c, "y", "x")
	t := r.t
	v0, v1, u0, u1, e, o, e2 := reg.Z6, reg.Z7, reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12
	p0, sum, div, csz, rf := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4
	evens, odds, zero, three := reg.Z30, reg.Z29, reg.Z28, reg.Z27
	c.VMOVDQU32(tab.Offset(544), evens)
	c.VMOVDQU32(tab.Offset(608), odds)
	c.VPXORD(zero, zero, zero)
	c.VPBROADCASTD(tab.Offset(832), three)
	c.Label("strip")
	stripMasks512(c, r.nl, r.width, r.cb, t, []int{0, 16, 2, 18}, []reg.Register{reg.K3, reg.K4, reg.K5, reg.K6})
	// csz: each output's window columns inside the plane, min(3, W − 2·pw).
	c.MOVQ(r.width, t)
	c.SUBQ(r.cb, t)
	c.VPBROADCASTD(reg.EAX, csz)
	c.VPSUBD(evens, csz, csz)
	c.VPMINSD(three, csz, csz)
	c.VCVTDQ2PS(csz, csz)
	c.MOVQ(r.srcS, r.srcp)
	c.MOVQ(r.dstS, r.dstp)
	c.XORQ(r.ph2, r.ph2)

	// horiz adds the window columns of the input row at row to acc, in
	// order; the row's three columns are left in e, o, e2.
	horiz := func(row operand.Mem, acc reg.VecPhysical, load bool) {
		at := func(off int) operand.Mem { m := row; m.Disp += off; return m }
		if load {
			for i, v := range []reg.VecPhysical{v0, v1, u0, u1} {
				c.VMOVUPS_Z(at([]int{0, 64, 8, 72}[i]), []reg.Register{reg.K3, reg.K4, reg.K5, reg.K6}[i], v)
			}
			c.VMOVDQA32(evens, e)
			c.VPERMI2PS(v1, v0, e)
			c.VMOVDQA32(odds, o)
			c.VPERMI2PS(v1, v0, o)
			c.VMOVDQA32(evens, e2)
			c.VPERMI2PS(u1, u0, e2)
		}
		c.VADDPS(e, acc, acc)
		c.VADDPS(o, acc, acc)
		c.VADDPS(e2, acc, acc)
	}
	c.VPXORD(p0, p0, p0)
	horiz(operand.Mem{Base: r.srcp}, p0, true)
	c.Label("outRow")
	c.Load(c.Param("height"), r.rowsHere)
	c.SUBQ(r.ph2, r.rowsHere)
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.MOVL(operand.U32(3), reg.EDX)
	c.CMOVQGT(reg.RDX, r.rowsHere)
	c.VMOVAPS(p0, sum)
	c.CMPQ(r.rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("divide"))
	horiz(operand.Mem{Base: r.srcp, Index: r.width, Scale: 4}, sum, true)
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("divide"))
	horiz(operand.Mem{Base: r.srcp, Index: r.width, Scale: 8}, sum, true)
	c.VPXORD(p0, p0, p0)
	horiz(operand.Mem{}, p0, false)
	c.Label("divide")
	rowsFloat(c, r, 1, reg.X5, rf)
	c.VMULPS(rf, csz, div)
	c.VDIVPS(div, sum, sum)
	c.VMOVUPS(sum, reg.K1, operand.Mem{Base: r.dstp})
	c.LEAQ(operand.Mem{Base: r.srcp, Index: r.width, Scale: 8}, r.srcp)
	c.Load(c.Param("outW"), t)
	c.LEAQ(operand.Mem{Base: r.dstp, Index: t, Scale: 4}, r.dstp)
	c.ADDQ(operand.U8(2), r.ph2)
	c.Load(c.Param("outH"), t)
	c.SHLQ(operand.U8(1), t)
	c.CMPQ(r.ph2, t)
	c.JLT(operand.LabelRef("outRow"))

	c.ADDQ(operand.U32(128), r.srcS)
	c.ADDQ(operand.U8(64), r.dstS)
	c.ADDQ(operand.U8(32), r.cb)
	c.SUBQ(operand.U8(16), r.nl)
	c.JG(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"y", false}, planePtr{"x", true})
	c.VZEROUPPER()
	c.RET()
}

// avePool3s2_256 emits avePool3s2AVX2, avePool3s2AVX512 for AVX2: strips
// of 8 outputs in the lane order of maxPool3s2AVX2.
func avePool3s2_256(c *build.Context, tab operand.Mem) {
	poolFunc(c, "avePool3s2AVX2", "func(y *float32, x *float32, planes, height, width, outH, outW int)", "avePool3s2AVX2 is avePool3s2AVX512 for AVX2.")
	c.Label("plane")
	r := aveArgs(c, "y", "x")
	t := r.t
	loc := c.AllocLocal(5 * 32)
	masks := func(i int) operand.Mem { return loc.Offset(32 * i) }
	v0, v1, u0, u1, k := reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8
	p0, sum, div, csz, rf := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y9

	c.Label("strip")
	stripMasks256(c, r.nl, r.width, r.cb, t, reg.X8, k, tab.Offset(256), masks, []int{0, 8, 2, 10})
	// csz in the kernel's lane order (outputs 0, 1, 4, 5, 2, 3, 6, 7).
	c.MOVQ(r.width, t)
	c.SUBQ(r.cb, t)
	c.VMOVQ(t, reg.X3)
	c.VPBROADCASTD(reg.X3, csz)
	c.VPSUBD(tab.Offset(672), csz, csz)
	c.VPMINSD(tab.Offset(832), csz, csz)
	c.VCVTDQ2PS(csz, csz)
	c.MOVQ(r.srcS, r.srcp)
	c.MOVQ(r.dstS, r.dstp)
	c.XORQ(r.ph2, r.ph2)

	horiz := func(row operand.Mem, acc reg.VecPhysical, load bool) {
		at := func(off int) operand.Mem { m := row; m.Disp += off; return m }
		if load {
			for i, v := range []reg.VecPhysical{v0, v1, u0, u1} {
				c.VMOVDQU(masks(1+i), k)
				c.VMASKMOVPS(at([]int{0, 32, 8, 40}[i]), k, v)
			}
			c.VSHUFPS(operand.U8(0x88), u1, u0, u0) // columns 2·pw+2
			c.VSHUFPS(operand.U8(0x88), v1, v0, k)  // columns 2·pw
			c.VSHUFPS(operand.U8(0xdd), v1, v0, v1) // columns 2·pw+1
			c.VMOVAPS(k, v0)
		}
		c.VADDPS(v0, acc, acc)
		c.VADDPS(v1, acc, acc)
		c.VADDPS(u0, acc, acc)
	}
	c.VXORPS(p0, p0, p0)
	horiz(operand.Mem{Base: r.srcp}, p0, true)
	c.Label("outRow")
	c.Load(c.Param("height"), r.rowsHere)
	c.SUBQ(r.ph2, r.rowsHere)
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.MOVL(operand.U32(3), reg.EDX)
	c.CMOVQGT(reg.RDX, r.rowsHere)
	c.VMOVAPS(p0, sum)
	c.CMPQ(r.rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("divide"))
	horiz(operand.Mem{Base: r.srcp, Index: r.width, Scale: 4}, sum, true)
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("divide"))
	horiz(operand.Mem{Base: r.srcp, Index: r.width, Scale: 8}, sum, true)
	c.VXORPS(p0, p0, p0)
	horiz(operand.Mem{}, p0, false)
	c.Label("divide")
	rowsFloat(c, r, 1, reg.X9, rf)
	c.VMULPS(rf, csz, div)
	c.VDIVPS(div, sum, sum)
	c.VPERMQ(operand.U8(0xd8), sum, sum)
	c.VMOVDQU(masks(0), k)
	c.VMASKMOVPS(sum, k, operand.Mem{Base: r.dstp})
	c.LEAQ(operand.Mem{Base: r.srcp, Index: r.width, Scale: 8}, r.srcp)
	c.Load(c.Param("outW"), t)
	c.LEAQ(operand.Mem{Base: r.dstp, Index: t, Scale: 4}, r.dstp)
	c.ADDQ(operand.U8(2), r.ph2)
	c.Load(c.Param("outH"), t)
	c.SHLQ(operand.U8(1), t)
	c.CMPQ(r.ph2, t)
	c.JLT(operand.LabelRef("outRow"))

	c.ADDQ(operand.U8(64), r.srcS)
	c.ADDQ(operand.U8(32), r.dstS)
	c.ADDQ(operand.U8(16), r.cb)
	c.SUBQ(operand.U8(8), r.nl)
	c.JG(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"y", false}, planePtr{"x", true})
	c.VZEROUPPER()
	c.RET()
}

// avePoolBack3s2_512 emits avePoolBack3s2AVX512: strips of 16 outputs
// over the 32 input columns [32b, 32b+32), top to bottom. An output row's
// spread row over the strip's columns is (+0 + B) + A, A the gradient of
// output ⌊c/2⌋ and B (even columns) that of output c/2 − 1 (for column
// 32b the previous strip's last output, divided again: the same division),
// each divided by its window's size; input row 2·ph is the previous
// spread row plus this one, row 2·ph+1 this one.
func avePoolBack3s2_512(c *build.Context, tab operand.Mem) {
	poolFunc(c, "avePoolBack3s2AVX512", "func(dx *float32, dy *float32, planes, height, width, outH, outW int)", "avePoolBack3s2AVX512 sets the rows [0, min(height, 2*outH+1)) of the height×width plane dx to the gradient of a 3×3, stride-2 average pooling without padding, in the order of the layer's spread rows.")
	c.Label("plane")
	r := aveArgs(c, "dx", "dy")
	t := r.t
	g, v, aLo, aHi, bLo, bHi, pLo, pHi := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7
	rLo, rHi, csz, div, rf, vp := reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13
	dupLo, dupHi, bTabLo, bTabHi, evens, zero, three := reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z30, reg.Z28, reg.Z27
	c.VMOVDQU32(tab, dupLo)
	c.VMOVDQU32(tab.Offset(64), dupHi)
	c.VMOVDQU32(tab.Offset(128), bTabLo)
	c.VMOVDQU32(tab.Offset(192), bTabHi)
	c.VMOVDQU32(tab.Offset(544), evens)
	c.VPXORD(zero, zero, zero)
	c.VPBROADCASTD(tab.Offset(832), three)
	c.MOVL(operand.U32(0x5555), reg.EAX)
	c.KMOVW(reg.EAX, reg.K2)
	c.Label("strip")
	stripMasks512(c, r.nl, r.width, r.cb, t, []int{0, 16}, []reg.Register{reg.K3, reg.K4})
	cols := reg.R15
	colsLeft(c, cols, r.width, r.cb)
	c.MOVQ(r.width, t)
	c.SUBQ(r.cb, t)
	c.VPBROADCASTD(reg.EAX, csz)
	c.VPSUBD(evens, csz, csz)
	c.VPMINSD(three, csz, csz)
	c.VCVTDQ2PS(csz, csz)
	c.MOVQ(r.dstS, r.dstp)
	c.MOVQ(r.srcS, r.srcp)
	c.XORQ(r.ph2, r.ph2)

	c.Label("outRow")
	c.Load(c.Param("height"), r.rowsHere)
	c.SUBQ(r.ph2, r.rowsHere)
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.MOVL(operand.U32(3), reg.EDX)
	c.CMOVQGT(reg.RDX, r.rowsHere)
	rowsFloat(c, r, 1, reg.X12, rf)
	c.VMULPS(rf, csz, div)
	c.VMOVUPS_Z(operand.Mem{Base: r.srcp}, reg.K1, g)
	c.VDIVPS_Z(div, g, reg.K1, v)
	// vp: the previous strip's last output of the row, divided by its
	// window's size, 3 columns by the rows.
	c.VPXORD(vp, vp, vp)
	c.TESTQ(r.cb, r.cb)
	c.JZ(operand.LabelRef("first"))
	rowsFloat(c, r, 3, reg.X12, rf)
	c.VBROADCASTSS(operand.Mem{Base: r.srcp, Disp: -4}, vp)
	c.VDIVPS(rf, vp, vp)
	c.Label("first")
	c.VPERMPS(v, dupLo, aLo)
	c.VPERMPS(v, dupHi, aHi)
	c.VPERMT2PS_Z(v, bTabLo, reg.K2, vp)
	c.VPERMPS_Z(v, bTabHi, reg.K2, bHi)
	bLo = vp
	for _, h := range [][3]reg.VecPhysical{{bLo, aLo, rLo}, {bHi, aHi, rHi}} {
		c.VADDPS(zero, h[0], h[2])
		c.VADDPS(h[1], h[2], h[2])
	}
	// Row 2·ph: the previous spread row plus this one (this one alone for
	// ph = 0).
	c.VMOVAPS(rLo, aLo)
	c.VMOVAPS(rHi, aHi)
	c.TESTQ(r.ph2, r.ph2)
	c.JZ(operand.LabelRef("top"))
	c.VADDPS(rLo, pLo, aLo)
	c.VADDPS(rHi, pHi, aHi)
	c.Label("top")
	storePair(c, cols, aLo, aHi, operand.Mem{Base: r.dstp})
	c.VMOVAPS(rLo, pLo)
	c.VMOVAPS(rHi, pHi)
	c.CMPQ(r.rowsHere, operand.U8(2))
	c.JLT(operand.LabelRef("next"))
	storePair(c, cols, rLo, rHi, operand.Mem{Base: r.dstp, Index: r.width, Scale: 4})
	c.Label("next")
	c.LEAQ(operand.Mem{Base: r.dstp, Index: r.width, Scale: 8}, r.dstp)
	c.Load(c.Param("outW"), t)
	c.LEAQ(operand.Mem{Base: r.srcp, Index: t, Scale: 4}, r.srcp)
	c.ADDQ(operand.U8(2), r.ph2)
	c.Load(c.Param("outH"), t)
	c.SHLQ(operand.U8(1), t)
	c.CMPQ(r.ph2, t)
	c.JLT(operand.LabelRef("outRow"))
	// Row 2·outH, when inside the plane: the last spread row alone.
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("stripEnd"))
	storePair(c, cols, pLo, pHi, operand.Mem{Base: r.dstp})
	c.Label("stripEnd")
	c.ADDQ(operand.U32(128), r.dstS)
	c.ADDQ(operand.U8(64), r.srcS)
	c.ADDQ(operand.U8(32), r.cb)
	c.SUBQ(operand.U8(16), r.nl)
	c.CMPQ(r.cb, r.width)
	c.JLT(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"dx", true}, planePtr{"dy", false})
	c.VZEROUPPER()
	c.RET()
}

// avePoolBack3s2_256 emits avePoolBack3s2AVX2, avePoolBack3s2AVX512 for
// AVX2: strips of 8 outputs over 16 columns, in two halves.
func avePoolBack3s2_256(c *build.Context, tab operand.Mem) {
	poolFunc(c, "avePoolBack3s2AVX2", "func(dx *float32, dy *float32, planes, height, width, outH, outW int)", "avePoolBack3s2AVX2 is avePoolBack3s2AVX512 for AVX2.")
	c.Label("plane")
	r := aveArgs(c, "dx", "dy")
	t := r.t
	loc := c.AllocLocal(3 * 32)
	lanes, st := loc, func(h int) operand.Mem { return loc.Offset(32 + 32*h) }
	v, a, b, rr, csz, div, rf, vp, tmp, zero := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y9
	prev := []reg.VecPhysical{reg.Y10, reg.Y11}
	c.VXORPS(zero, zero, zero)

	c.Label("strip")
	c.VMOVQ(r.nl, reg.X8)
	c.VPBROADCASTD(reg.X8, tmp)
	c.VPCMPGTD(tab.Offset(256), tmp, tmp)
	c.VMOVDQU(tmp, lanes)
	c.MOVQ(r.width, t)
	c.SUBQ(r.cb, t)
	c.VMOVQ(t, reg.X4)
	c.VPBROADCASTD(reg.X4, csz)
	c.VPCMPGTD(tab.Offset(256), csz, tmp)
	c.VMOVDQU(tmp, st(0))
	c.VPCMPGTD(tab.Offset(288), csz, tmp)
	c.VMOVDQU(tmp, st(1))
	// csz: min(3, W − 2·pw) for the strip's outputs, in order.
	c.VPSUBD(tab.Offset(544), csz, csz)
	c.VPMINSD(tab.Offset(832), csz, csz)
	c.VCVTDQ2PS(csz, csz)
	c.MOVQ(r.dstS, r.dstp)
	c.MOVQ(r.srcS, r.srcp)
	c.XORQ(r.ph2, r.ph2)

	c.Label("outRow")
	c.Load(c.Param("height"), r.rowsHere)
	c.SUBQ(r.ph2, r.rowsHere)
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.MOVL(operand.U32(3), reg.EDX)
	c.CMOVQGT(reg.RDX, r.rowsHere)
	rowsFloat(c, r, 1, reg.X6, rf)
	c.VMULPS(rf, csz, div)
	c.VMOVDQU(lanes, tmp)
	c.VMASKMOVPS(operand.Mem{Base: r.srcp}, tmp, v)
	c.VDIVPS(div, v, v)
	c.VANDPS(tmp, v, v) // the lanes past the outputs: +0 (not 0/div's NaN)
	c.VXORPS(vp, vp, vp)
	c.TESTQ(r.cb, r.cb)
	c.JZ(operand.LabelRef("first"))
	rowsFloat(c, r, 3, reg.X6, rf)
	c.VBROADCASTSS(operand.Mem{Base: r.srcp, Disp: -4}, vp)
	c.VDIVPS(rf, vp, vp)
	c.Label("first")
	for h := 0; h < 2; h++ {
		c.VMOVDQU(tab.Offset(320+32*h), tmp)
		c.VPERMPS(v, tmp, a)
		c.VMOVDQU(tab.Offset(384+32*h), tmp)
		c.VPERMPS(v, tmp, b)
		if h == 0 {
			c.VBLENDPS(operand.U8(0x01), vp, b, b)
		}
		c.VBLENDPS(operand.U8(0xaa), zero, b, b)
		c.VADDPS(zero, b, rr)
		c.VADDPS(a, rr, rr)
		c.VMOVAPS(rr, a)
		c.TESTQ(r.ph2, r.ph2)
		c.JZ(operand.LabelRef(fmt.Sprintf("top%d", h)))
		c.VADDPS(rr, prev[h], a)
		c.Label(fmt.Sprintf("top%d", h))
		c.VMOVDQU(st(h), tmp)
		c.VMASKMOVPS(a, tmp, operand.Mem{Base: r.dstp, Disp: 32 * h})
		c.VMOVAPS(rr, prev[h])
		c.CMPQ(r.rowsHere, operand.U8(2))
		c.JLT(operand.LabelRef(fmt.Sprintf("skip%d", h)))
		c.VMASKMOVPS(rr, tmp, operand.Mem{Base: r.dstp, Index: r.width, Scale: 4, Disp: 32 * h})
		c.Label(fmt.Sprintf("skip%d", h))
	}
	c.LEAQ(operand.Mem{Base: r.dstp, Index: r.width, Scale: 8}, r.dstp)
	c.Load(c.Param("outW"), t)
	c.LEAQ(operand.Mem{Base: r.srcp, Index: t, Scale: 4}, r.srcp)
	c.ADDQ(operand.U8(2), r.ph2)
	c.Load(c.Param("outH"), t)
	c.SHLQ(operand.U8(1), t)
	c.CMPQ(r.ph2, t)
	c.JLT(operand.LabelRef("outRow"))
	c.CMPQ(r.rowsHere, operand.U8(3))
	c.JLT(operand.LabelRef("stripEnd"))
	for h := 0; h < 2; h++ {
		c.VMOVDQU(st(h), tmp)
		c.VMASKMOVPS(prev[h], tmp, operand.Mem{Base: r.dstp, Disp: 32 * h})
	}
	c.Label("stripEnd")
	c.ADDQ(operand.U8(64), r.dstS)
	c.ADDQ(operand.U8(32), r.srcS)
	c.ADDQ(operand.U8(16), r.cb)
	c.SUBQ(operand.U8(8), r.nl)
	c.CMPQ(r.cb, r.width)
	c.JLT(operand.LabelRef("strip"))
	stepPlane(c, planePtr{"dx", true}, planePtr{"dy", false})
	c.VZEROUPPER()
	c.RET()
}
