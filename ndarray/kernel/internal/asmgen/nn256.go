package main

import (
	"math"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The AVX2 layer kernels: packing tiles of A (and panels of a transposed
// B) by 8×8 transposes, full blocks of 8 pooling outputs, and the rows of
// im2col and col2im for stride 1. AVX2 has no opmasks: partial vectors
// use VMASKMOVPS, whose masked-off lanes are neither read nor written (and
// do not fault), under lane masks made by comparing a broadcast count with
// the lane numbers 0..7.

func buildNN256(c *build.Context) {
	tab := consts256(c)
	packA256(c, tab)
	pool256(c, tab, true, false)
	pool256(c, tab, false, false)
	pool256(c, tab, true, true)
	pool256(c, tab, false, true)
	convRows256(c, tab, true)
	convRows256(c, tab, false)
}

// consts256 emits the AVX2 constants: the int32 lane numbers 0..7, then
// −MaxFloat32 and the int32 1 and 8.
func consts256(c *build.Context) operand.Mem {
	m := c.StaticGlobal("consts256")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(l))
	}
	c.AddDatum(32, operand.U32(math.Float32bits(-math.MaxFloat32)))
	c.AddDatum(36, operand.U32(1))
	c.AddDatum(40, operand.U32(8))
	return m
}

// lanesBelow sets the vector dst to a lane mask of the lanes l < n, for
// the count in the 64-bit register n (any value below 2³¹; a count of 8
// or more sets every lane, 0 or less none).
func lanesBelow(c *build.Context, tab operand.Mem, n reg.Register, dst reg.VecPhysical) {
	x := dst.AsX()
	c.VMOVQ(n, x)
	c.VPBROADCASTD(x, dst)
	c.VPCMPGTD(tab, dst, dst)
}

// transpose8 transposes the 8×8 block in Y0..Y7 (row i in Yi) into
// Y8..Y15 (column j in Y8+j), overwriting Y0..Y7.
func transpose8(c *build.Context) {
	y := ymm
	// t: floats of row pairs interleaved (Y8..Y15).
	for i := 0; i < 8; i += 2 {
		c.VUNPCKLPS(y(i+1), y(i), y(8+i))
		c.VUNPCKHPS(y(i+1), y(i), y(8+i+1))
	}
	// s: in each 128-bit half, column j of four rows (Y0..Y7): s0, s1
	// from the low interleaves of rows 0–3 (columns 0, 1 and 4, 5), s2, s3
	// from the high ones (columns 2, 3 and 6, 7); s4..s7 the same for
	// rows 4–7.
	for h := 0; h < 8; h += 4 {
		t := 8 + h
		c.VSHUFPS(operand.U8(0x44), y(t+2), y(t), y(h))
		c.VSHUFPS(operand.U8(0xee), y(t+2), y(t), y(h+1))
		c.VSHUFPS(operand.U8(0x44), y(t+3), y(t+1), y(h+2))
		c.VSHUFPS(operand.U8(0xee), y(t+3), y(t+1), y(h+3))
	}
	// Columns j and j+4: the low and the high halves of s_j and s_j+4.
	for j := 0; j < 4; j++ {
		c.VPERM2F128(operand.U8(0x20), y(j+4), y(j), y(8+j))
		c.VPERM2F128(operand.U8(0x31), y(j+4), y(j), y(12+j))
	}
}

// packA256 emits packAAVX2, the tile packer of the AVX2 SGEMM (see
// packA512): eight columns of up to eight rows at a time, transposed in
// registers and stored as eight packed rows of h lanes.
func packA256(c *build.Context, tab operand.Mem) {
	c.Function("packAAVX2")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(dst, src *float32, h, kb, lda, ldd int, alpha float32)")
	c.Doc("packAAVX2 packs an h×kb tile of A (1 <= h <= 8, rows lda floats apart) k-major, scaled by alpha: dst[p*ldd+i] = alpha*src[i*lda+p].")
	dst, src, h, kb, lda := reg.RDI, reg.RSI, reg.RCX, reg.RDX, reg.R8
	t, d, hb, rem := reg.R9, reg.R10, reg.R11, reg.R12
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("h"), h)
	c.Load(c.Param("kb"), kb)
	c.Load(c.Param("lda"), lda)
	c.SHLQ(operand.U8(2), lda)
	c.Load(c.Param("ldd"), hb)
	c.SHLQ(operand.U8(2), hb)
	alpha := paramAddr(c, "alpha")
	c.MOVQ(kb, rem)
	c.ANDQ(operand.U8(7), rem)
	c.SHRQ(operand.U8(3), kb)
	c.JZ(operand.LabelRef("tail"))

	// load emits the loads of up to eight rows of one 8-column chunk (Y14
	// masks them when tail); the rows past h are left as they are, since
	// their lanes are never stored.
	load := func(tail bool, tag string) {
		c.VBROADCASTSS(alpha, reg.Y15)
		c.MOVQ(src, t)
		for i := 0; i < 8; i++ {
			if i > 0 {
				c.CMPQ(h, operand.U8(i))
				c.JLE(operand.LabelRef("loaded" + tag))
			}
			if tail {
				c.VMASKMOVPS(operand.Mem{Base: t}, reg.Y14, ymm(i))
				c.VMULPS(reg.Y15, ymm(i), ymm(i))
			} else {
				c.VMULPS(operand.Mem{Base: t}, reg.Y15, ymm(i))
			}
			if i < 7 {
				c.ADDQ(lda, t)
			}
		}
		c.Label("loaded" + tag)
	}
	// store emits the stores of packed rows 0..n-1 (all eight when n is
	// nil, else as many as the register n says), each of h lanes.
	store := func(n reg.Register, tag string) {
		c.CMPQ(h, operand.U8(8))
		c.JEQ(operand.LabelRef("whole" + tag))
		lanesBelow(c, tab, h, reg.Y0)
		for _, whole := range []bool{false, true} {
			if whole {
				c.Label("whole" + tag)
			}
			c.MOVQ(dst, d)
			for j := 0; j < 8; j++ {
				if whole {
					c.VMOVUPS(ymm(8+j), operand.Mem{Base: d})
				} else {
					c.VMASKMOVPS(ymm(8+j), reg.Y0, operand.Mem{Base: d})
				}
				c.ADDQ(hb, d)
				if n != nil && j < 7 {
					c.CMPQ(n, operand.U8(j+1))
					c.JEQ(operand.LabelRef("stored" + tag))
				}
			}
			if !whole {
				c.JMP(operand.LabelRef("stored" + tag))
			}
		}
		c.Label("stored" + tag)
		c.MOVQ(d, dst)
	}

	c.Label("chunk")
	load(false, "")
	transpose8(c)
	store(nil, "")
	c.ADDQ(operand.U8(32), src)
	c.DECQ(kb)
	c.JNZ(operand.LabelRef("chunk"))

	c.Label("tail")
	c.TESTQ(rem, rem)
	c.JZ(operand.LabelRef("done"))
	lanesBelow(c, tab, rem, reg.Y14)
	load(true, "tail")
	transpose8(c)
	store(rem, "tail")
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// pool256 emits maxPoolRowAVX2 (max) or avePoolRowAVX2: n outputs of one
// pooling row, as pool512 computes them, eight at a time. A stride-2
// block reads the 16 floats from its first window column on and keeps
// the even ones (VSHUFPS, then VPERMPD to put the quarters in order). The
// first full blocks read whole vectors (the caller has checked that they
// lie inside the source); later blocks read under lane masks Y7 (stride
// 1), Y8 and Y9 (stride 2) only the floats their windows hold, and store
// under Y7 only their outputs.
//
// With multi, it emits maxPoolRowsAVX2 or avePoolRowsAVX2 (see pool512),
// full applying to every row.
func pool256(c *build.Context, tab operand.Mem, isMax, multi bool) {
	name := "avePoolRowAVX2"
	sig := "func(dst *float32, src *float32, n, full, rows, ld, kw, stride int, div float32)"
	doc := "avePoolRowAVX2 sets dst[o] to the sum of src[i*ld+o*stride+j] for i < rows and j < kw (added in that order) divided by div, for o < n; stride is 1 or 2, n, rows, kw >= 1, and the first full blocks of 8 outputs may read 8 (stride 1) or 16 floats from each window column."
	if isMax {
		name = "maxPoolRowAVX2"
		sig = "func(dst *float32, arg *int32, src *float32, n, full, rows, ld, kw, stride int, base int32)"
		doc = "maxPoolRowAVX2 sets dst[o] to the first largest src[i*ld+o*stride+j] (i < rows, j < kw, row-major) greater than -MaxFloat32, and arg[o] to base plus its offset, for o < n; an output with no such value gets -MaxFloat32 and -1. stride is 1 or 2, n, rows, kw >= 1, and the first full blocks of 8 outputs may read 8 (stride 1) or 16 floats from each window column."
	}
	if multi {
		name = strings.Replace(name, "Row", "Rows", 1)
		sig = strings.TrimSuffix(sig, ")") + ", count, dstRow, srcRow int)"
		doc = name + " computes count rows of outputs as " + strings.Replace(name, "Rows", "Row", 1) +
			" does one: row r at dst[r*dstRow:] from the windows at src[r*srcRow:]"
		if isMax {
			doc += ", its indexes at arg[r*dstRow:] based at base+r*srcRow"
		}
		doc += "; full applies to every row."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	dst, arg, src, n, full := reg.RDI, reg.RBX, reg.RSI, reg.RCX, reg.R14
	ldb, kw, stride := reg.R8, reg.R9, reg.R10
	row, col, rowsLeft, taps, t := reg.R11, reg.R12, reg.R13, reg.RDX, reg.RAX
	c.Load(c.Param("dst"), dst)
	if isMax {
		c.Load(c.Param("arg"), arg)
	}
	c.Load(c.Param("src"), src)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("full"), full)
	c.Load(c.Param("ld"), ldb)
	c.SHLQ(operand.U8(2), ldb)
	c.Load(c.Param("kw"), kw)
	c.Load(c.Param("stride"), stride)

	best, idx, cand, hi, cidx, ridx, m := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6
	mOut, mLo, mHi := reg.Y7, reg.Y8, reg.Y9
	negMax, ones, ldv, blockIdx, blockStep, minus1 := reg.Y15, reg.Y14, reg.Y13, reg.Y12, reg.Y11, reg.Y10
	if isMax {
		c.VBROADCASTSS(tab.Offset(32), negMax)
		c.VPCMPEQD(minus1, minus1, minus1) // all ones = −1
		c.VPBROADCASTD(tab.Offset(36), ones)
		c.Load(c.Param("ld"), t)
		c.VMOVQ(t, ldv.AsX())
		c.VPBROADCASTD(ldv.AsX(), ldv)
		// blockIdx = base + lane·stride; it advances by 8·stride a block.
		c.VMOVQ(stride, cand.AsX())
		c.VPBROADCASTD(cand.AsX(), cand)
		c.VPMULLD(tab, cand, blockIdx)
		c.Load(c.Param("base"), reg.EAX)
		c.VMOVQ(t, hi.AsX())
		c.VPBROADCASTD(hi.AsX(), hi)
		c.VPADDD(hi, blockIdx, blockIdx)
		c.VPSLLD(operand.U8(3), cand, blockStep)
	} else {
		c.VBROADCASTSS(paramAddr(c, "div"), blockStep)
	}
	var locals operand.Mem
	if multi {
		// Locals: the row's dst, arg and src, the rows left, and the
		// first block's indexes.
		locals = c.AllocLocal(64)
		c.MOVQ(dst, locals)
		c.MOVQ(arg, locals.Offset(8))
		c.MOVQ(src, locals.Offset(16))
		c.Load(c.Param("count"), t)
		c.MOVQ(t, locals.Offset(24))
		if isMax {
			c.VMOVDQU(blockIdx, locals.Offset(32))
		}
		c.Label("rowStart")
		c.MOVQ(locals, dst)
		c.MOVQ(locals.Offset(8), arg)
		c.MOVQ(locals.Offset(16), src)
		c.Load(c.Param("n"), n)
		c.Load(c.Param("full"), full)
		if isMax {
			c.VMOVDQU(locals.Offset(32), blockIdx)
		}
	}
	// t: the bytes from one block's first source float to the next's.
	c.MOVQ(stride, t)
	c.SHLQ(operand.U8(5), t)

	c.Label("block")
	c.TESTQ(full, full)
	c.JG(operand.LabelRef("start"))
	// A masked block of min(8, n) outputs: they need 2·count−1 floats
	// of each window column when the stride is 2.
	c.MOVQ(operand.U32(8), taps)
	c.CMPQ(n, taps)
	c.CMOVQLT(n, taps)
	lanesBelow(c, tab, taps, mOut)
	c.LEAQ(operand.Mem{Base: taps, Index: taps, Scale: 1, Disp: -1}, taps)
	lanesBelow(c, tab, taps, mLo)
	c.SUBQ(operand.U8(8), taps)
	lanesBelow(c, tab, taps, mHi)
	c.Label("start")
	if isMax {
		c.VMOVAPS(negMax, best)
		c.VMOVDQA(minus1, idx)
		c.VMOVDQA(blockIdx, ridx)
	} else {
		c.VXORPS(best, best, best)
	}
	c.MOVQ(src, row)
	c.Load(c.Param("rows"), rowsLeft)
	c.Label("row")
	c.MOVQ(row, col)
	c.MOVQ(kw, taps)
	if isMax {
		c.VMOVDQA(ridx, cidx)
	}
	c.Label("tap")
	c.CMPQ(stride, operand.U8(1))
	c.JNE(operand.LabelRef("even"))
	c.TESTQ(full, full)
	c.JLE(operand.LabelRef("masked1"))
	c.VMOVUPS(operand.Mem{Base: col}, cand)
	c.JMP(operand.LabelRef("fold"))
	c.Label("masked1")
	c.VMASKMOVPS(operand.Mem{Base: col}, mOut, cand)
	c.JMP(operand.LabelRef("fold"))
	c.Label("even")
	c.TESTQ(full, full)
	c.JLE(operand.LabelRef("masked2"))
	c.VMOVUPS(operand.Mem{Base: col}, cand)
	c.VSHUFPS(operand.U8(0x88), operand.Mem{Base: col, Disp: 32}, cand, cand)
	c.JMP(operand.LabelRef("permute"))
	c.Label("masked2")
	c.VMASKMOVPS(operand.Mem{Base: col}, mLo, cand)
	c.VMASKMOVPS(operand.Mem{Base: col, Disp: 32}, mHi, hi)
	c.VSHUFPS(operand.U8(0x88), hi, cand, cand)
	c.Label("permute")
	c.VPERMPD(operand.U8(0xd8), cand, cand)
	c.Label("fold")
	if isMax {
		c.VCMPPS(operand.U8(cmpGTOQ), best, cand, m)
		c.VBLENDVPS(m, cand, best, best)
		c.VBLENDVPS(m, cidx, idx, idx)
		c.VPADDD(ones, cidx, cidx)
	} else {
		c.VADDPS(cand, best, best)
	}
	c.ADDQ(operand.U8(4), col)
	c.DECQ(taps)
	c.JNZ(operand.LabelRef("tap"))
	c.ADDQ(ldb, row)
	if isMax {
		c.VPADDD(ldv, ridx, ridx)
	}
	c.DECQ(rowsLeft)
	c.JNZ(operand.LabelRef("row"))

	if !isMax {
		c.VDIVPS(blockStep, best, best)
	}
	c.TESTQ(full, full)
	c.JLE(operand.LabelRef("storeMasked"))
	c.VMOVUPS(best, operand.Mem{Base: dst})
	if isMax {
		c.VMOVDQU(idx, operand.Mem{Base: arg})
	}
	c.JMP(operand.LabelRef("stored"))
	c.Label("storeMasked")
	c.VMASKMOVPS(best, mOut, operand.Mem{Base: dst})
	if isMax {
		c.VPMASKMOVD(idx, mOut, operand.Mem{Base: arg})
	}
	c.Label("stored")
	c.ADDQ(operand.U8(32), dst)
	if isMax {
		c.ADDQ(operand.U8(32), arg)
		c.VPADDD(blockStep, blockIdx, blockIdx)
	}
	c.ADDQ(t, src)
	c.DECQ(full)
	c.SUBQ(operand.U8(8), n)
	c.JG(operand.LabelRef("block"))
	if multi {
		c.Load(c.Param("dstRow"), t)
		c.SHLQ(operand.U8(2), t)
		c.ADDQ(t, locals)
		c.ADDQ(t, locals.Offset(8))
		c.Load(c.Param("srcRow"), t)
		if isMax {
			c.VMOVQ(t, cand.AsX())
			c.VPBROADCASTD(cand.AsX(), cand)
			c.VPADDD(locals.Offset(32), cand, cand)
			c.VMOVDQU(cand, locals.Offset(32))
		}
		c.SHLQ(operand.U8(2), t)
		c.ADDQ(t, locals.Offset(16))
		c.DECQ(locals.Offset(24))
		c.JNZ(operand.LabelRef("rowStart"))
	}
	c.VZEROUPPER()
	c.RET()
}

// convRows256 emits im2colRowsAVX2 or col2imRowsAVX2, the stride-1 forms
// of convRows512: rows runs of cols lanes, of which [lo, hi) come from
// (or are added back to) img[off + r*ld + o].
//
// im2col walks every vector of a run; its masked load reads the image
// lanes and zeroes the padding. Runs lie one after the other in the
// column matrix, so the last vector of a run is stored whole (its excess
// lanes are the next run's, written next) except in the last run.
// col2im walks the vectors of [lo, hi) only: whole vectors with plain
// loads and stores, the last one under a mask.
func convRows256(c *build.Context, tab operand.Mem, im2col bool) {
	name := "col2imRowsAVX2"
	doc := "col2imRowsAVX2 adds col[r*cols+o] to img[off+r*ld+o] for r < rows and lo <= o < hi (rows, cols >= 1; 0 <= lo < hi <= cols)."
	sig := "func(img *float32, col *float32, off, ld, rows, cols, lo, hi int)"
	if im2col {
		name = "im2colRowsAVX2"
		doc = "im2colRowsAVX2 sets col[r*cols+o] to img[off+r*ld+o] for r < rows and lo <= o < hi, and to zero for the other o < cols (rows, cols >= 1; 0 <= lo < hi <= cols)."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	img, col, ldb, rows, cols, lo, hi := reg.RDI, reg.RSI, reg.R8, reg.R9, reg.R10, reg.R11, reg.R12
	o, t, p, q, left := reg.RAX, reg.RDX, reg.RBX, reg.R13, reg.R14
	c.Load(c.Param("img"), img)
	c.Load(c.Param("col"), col)
	c.Load(c.Param("off"), t)
	c.LEAQ(operand.Mem{Base: img, Index: t, Scale: 4}, img) // img at the first run
	c.Load(c.Param("ld"), ldb)
	c.SHLQ(operand.U8(2), ldb)
	c.Load(c.Param("rows"), rows)
	c.Load(c.Param("cols"), cols)
	c.Load(c.Param("lo"), lo)
	c.Load(c.Param("hi"), hi)

	v, w, m, m2, cur, eight, vlo, vhi, vcols := reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8
	if im2col {
		c.VPBROADCASTD(tab.Offset(40), eight)
		c.VMOVQ(lo, vlo.AsX())
		c.VPBROADCASTD(vlo.AsX(), vlo)
		c.VMOVQ(hi, vhi.AsX())
		c.VPBROADCASTD(vhi.AsX(), vhi)
		c.VMOVQ(cols, vcols.AsX())
		c.VPBROADCASTD(vcols.AsX(), vcols)
		// left: the lanes from the current run's start to the last run's
		// end.
		c.MOVQ(rows, left)
		c.IMULQ(cols, left)

		c.Label("run")
		c.XORQ(o, o)
		c.VMOVDQU(tab, cur) // the lane numbers o + l
		c.Label("vector")
		// m: the lanes lo <= o+l < hi.
		c.VPCMPGTD(cur, vhi, m)
		c.VPCMPGTD(cur, vlo, m2)
		c.VPANDN(m, m2, m)
		c.VMASKMOVPS(operand.Mem{Base: img, Index: o, Scale: 4}, m, v)
		c.MOVQ(left, t)
		c.SUBQ(o, t)
		c.CMPQ(t, operand.U8(8))
		c.JGE(operand.LabelRef("whole"))
		// A vector that would reach past the last run: only the lanes
		// o+l < cols.
		c.VPCMPGTD(cur, vcols, m)
		c.VMASKMOVPS(v, m, operand.Mem{Base: col, Index: o, Scale: 4})
		c.JMP(operand.LabelRef("next"))
		c.Label("whole")
		c.VMOVUPS(v, operand.Mem{Base: col, Index: o, Scale: 4})
		c.Label("next")
		c.VPADDD(eight, cur, cur)
		c.ADDQ(operand.U8(8), o)
		c.CMPQ(o, cols)
		c.JLT(operand.LabelRef("vector"))
		c.LEAQ(operand.Mem{Base: col, Index: cols, Scale: 4}, col)
		c.SUBQ(cols, left)
		c.ADDQ(ldb, img)
		c.DECQ(rows)
		c.JNZ(operand.LabelRef("run"))
		c.VZEROUPPER()
		c.RET()
		return
	}

	c.Label("run")
	c.MOVQ(lo, o)
	c.Label("vector")
	c.LEAQ(operand.Mem{Base: img, Index: o, Scale: 4}, p)
	c.LEAQ(operand.Mem{Base: col, Index: o, Scale: 4}, q)
	c.MOVQ(hi, t)
	c.SUBQ(o, t)
	c.CMPQ(t, operand.U8(8))
	c.JLT(operand.LabelRef("part"))
	c.VMOVUPS(operand.Mem{Base: p}, v)
	c.VADDPS(operand.Mem{Base: q}, v, v)
	c.VMOVUPS(v, operand.Mem{Base: p})
	c.ADDQ(operand.U8(8), o)
	c.CMPQ(o, hi)
	c.JLT(operand.LabelRef("vector"))
	c.JMP(operand.LabelRef("ran"))
	c.Label("part")
	lanesBelow(c, tab, t, m)
	c.VMASKMOVPS(operand.Mem{Base: p}, m, v)
	c.VMASKMOVPS(operand.Mem{Base: q}, m, w)
	c.VADDPS(w, v, v)
	c.VMASKMOVPS(v, m, operand.Mem{Base: p})
	c.Label("ran")
	c.LEAQ(operand.Mem{Base: col, Index: cols, Scale: 4}, col)
	c.ADDQ(ldb, img)
	c.DECQ(rows)
	c.JNZ(operand.LabelRef("run"))
	c.VZEROUPPER()
	c.RET()
}
