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

// The layer kernels: copies and sums of blocks of short rows, the rows of
// im2col and col2im, ReLU forward and backward, one output row of max or
// average pooling, and the element-wise division and square root. The
// AVX-512 kernels handle every length, the last vector of a row under an
// opmask; the AVX2 ReLU kernels handle whole vectors and leave the rest to
// the Go code that calls them (division and square root are generated as
// the other vector primitives). The other AVX2 layer kernels are in
// nn256.go.

// Comparison predicates of VCMPPS.
const (
	cmpGTOQ = 0x1e // greater than, ordered (false if either is NaN)
)

func buildNN(c *build.Context) {
	rows512(c, false)
	rows512(c, true)
	relu512(c)
	reluGrad512(c)
	relu256(c)
	reluGrad256(c)
	tab := poolConsts(c)
	pool512(c, tab, true, false)
	pool512(c, tab, false, false)
	pool512(c, tab, true, true)
	pool512(c, tab, false, true)
	maxPoolBack512(c)
	convRows512(c, tab, true)
	convRows512(c, tab, false)
	col2imImageRows512(c)
	im2colChannel512(c)
	for _, isa := range []vecISA{vec512, vec256} {
		vecBinary(c, isa, "div", "dst[i] = x[i] / y[i]", c.VDIVPS, c.VDIVSS)
		vecSqrt(c, isa)
	}
}

// vecSqrt emits sqrtAVX512 or sqrtAVX2: dst[i] = sqrt(x[i]), correctly
// rounded.
func vecSqrt(c *build.Context, isa vecISA) {
	vecFunc(c, isa, "sqrt", "func(dst, x []float32)", "dst[i] = sqrt(x[i]) for i < len(x)")
	n, x, d := reg.RCX, reg.RSI, reg.RDX
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dst").Base(), d)
	stride(c, isa, n, []reg.Register{x, d}, func(u, w int) {
		t := vreg(isa, u, w)
		m := operand.Mem{Base: x, Disp: u * w}
		if w == 4 {
			c.VMOVSS(m, t)
			c.VSQRTSS(t, t, t)
		} else {
			c.VSQRTPS(m, t)
		}
		store(c, t, operand.Mem{Base: d, Disp: u * w}, w)
	}, nil)
	finish(c)
}

// setMask sets opmask k to the lanes below the value in the 32-bit
// register n (0 to 32: BZHI reads only its low byte), using the 32-bit
// register tmp.
func setMask(c *build.Context, n, tmp reg.Register, k reg.Register) {
	c.MOVL(operand.U32(0xffffffff), tmp)
	c.BZHIL(n, tmp, tmp)
	c.KMOVW(tmp, k)
}

// rows512 emits copyRowsAVX512 or addRowsAVX512:
//
//	dst[i*ldd+j] = src[i*lds+j]   (or +=)   for i < rows, j < cols
//
// Each row is cols/16 whole vectors (all but the last when cols is a
// multiple of 16) and a last vector under opmask K1.
func rows512(c *build.Context, add bool) {
	name, doc := "copyRowsAVX512", "dst[i*ldd+j] = src[i*lds+j]"
	if add {
		name, doc = "addRowsAVX512", "dst[i*ldd+j] += src[i*lds+j]"
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(dst *float32, ldd int, src *float32, lds int, rows, cols int)")
	c.Doc(fmt.Sprintf("%s sets %s for i < rows and j < cols (rows, cols >= 1).", name, doc))
	dst, ldd, src, lds, rows, cols := reg.RDI, reg.R8, reg.RSI, reg.R9, reg.RCX, reg.RDX
	full, d, s, t := reg.R10, reg.R11, reg.R12, reg.R13
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("ldd"), ldd)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("lds"), lds)
	c.Load(c.Param("rows"), rows)
	c.Load(c.Param("cols"), cols)
	c.SHLQ(operand.U8(2), ldd)
	c.SHLQ(operand.U8(2), lds)
	// full = (cols-1)/16 whole vectors, then a last one of cols-16*full
	// (1..16) lanes.
	c.LEAQ(operand.Mem{Base: cols, Disp: -1}, full)
	c.SHRQ(operand.U8(4), full)
	c.MOVQ(full, t)
	c.SHLQ(operand.U8(4), t)
	c.SUBQ(t, cols)
	setMask(c, reg.EDX, reg.R13L, reg.K1)
	last := func(d, s reg.Register) {
		c.VMOVUPS_Z(operand.Mem{Base: s}, reg.K1, reg.Z0)
		if add {
			c.VMOVUPS_Z(operand.Mem{Base: d}, reg.K1, reg.Z1)
			c.VADDPS(reg.Z1, reg.Z0, reg.Z0)
		}
		c.VMOVUPS(reg.Z0, reg.K1, operand.Mem{Base: d})
	}
	c.TESTQ(full, full)
	c.JNZ(operand.LabelRef("long"))

	// Rows of at most 16: one masked vector each, two rows per step.
	c.Label("short2")
	c.CMPQ(rows, operand.U8(2))
	c.JL(operand.LabelRef("short1"))
	last(dst, src)
	c.VMOVUPS_Z(operand.Mem{Base: src, Index: lds, Scale: 1}, reg.K1, reg.Z2)
	if add {
		c.VMOVUPS_Z(operand.Mem{Base: dst, Index: ldd, Scale: 1}, reg.K1, reg.Z3)
		c.VADDPS(reg.Z3, reg.Z2, reg.Z2)
	}
	c.VMOVUPS(reg.Z2, reg.K1, operand.Mem{Base: dst, Index: ldd, Scale: 1})
	c.LEAQ(operand.Mem{Base: src, Index: lds, Scale: 2}, src)
	c.LEAQ(operand.Mem{Base: dst, Index: ldd, Scale: 2}, dst)
	c.SUBQ(operand.U8(2), rows)
	c.JMP(operand.LabelRef("short2"))
	c.Label("short1")
	c.TESTQ(rows, rows)
	c.JZ(operand.LabelRef("done"))
	last(dst, src)
	c.JMP(operand.LabelRef("done"))

	c.Label("long")
	c.MOVQ(src, s)
	c.MOVQ(dst, d)
	c.MOVQ(full, t)
	c.Label("vec")
	c.VMOVUPS(operand.Mem{Base: s}, reg.Z0)
	if add {
		c.VADDPS(operand.Mem{Base: d}, reg.Z0, reg.Z0)
	}
	c.VMOVUPS(reg.Z0, operand.Mem{Base: d})
	c.ADDQ(operand.U8(64), s)
	c.ADDQ(operand.U8(64), d)
	c.DECQ(t)
	c.JNZ(operand.LabelRef("vec"))
	last(d, s)
	c.ADDQ(lds, src)
	c.ADDQ(ldd, dst)
	c.DECQ(rows)
	c.JNZ(operand.LabelRef("long"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// reluLoop512 walks n = len(x) floats 16 at a time, the last vector under
// opmask K1; body(k) handles the vector at the pointers in ptrs with its
// loads and stores masked by k (nil for a whole vector). A signs pointer,
// when not nil, steps over the vector's 16 bits (two bytes).
func reluLoop512(c *build.Context, n reg.Register, ptrs []reg.Register, signs reg.Register, body func(k reg.Register)) {
	c.Label("loop")
	c.CMPQ(n, operand.U8(16))
	c.JL(operand.LabelRef("tail"))
	body(nil)
	for _, p := range ptrs {
		c.ADDQ(operand.U8(64), p)
	}
	if signs != nil {
		c.ADDQ(operand.U8(2), signs)
	}
	c.SUBQ(operand.U8(16), n)
	c.JMP(operand.LabelRef("loop"))
	c.Label("tail")
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef("done"))
	setMask(c, reg.ECX, reg.R10L, reg.K1)
	body(reg.K1)
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// load512 loads a vector at m into r, masked (zeroing) by k unless k is nil.
func load512(c *build.Context, m operand.Mem, k, r reg.Register) {
	if k == nil {
		c.VMOVUPS(m, r)
	} else {
		c.VMOVUPS_Z(m, k, r)
	}
}

// store512 stores r at m, masked by k unless k is nil.
func store512(c *build.Context, r reg.Register, k reg.Register, m operand.Mem) {
	if k == nil {
		c.VMOVUPS(r, m)
	} else {
		c.VMOVUPS(r, k, m)
	}
}

// relu512 emits reluAVX512: dst[i] = x[i] if x[i] > 0, else slope*x[i]+0.
func relu512(c *build.Context) {
	c.Function("reluAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, x []float32, slope float32)")
	c.Doc("reluAVX512 sets dst[i] = x[i] if x[i] > 0, else slope*x[i], for i < len(x).")
	n, x, d := reg.RCX, reg.RSI, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dst").Base(), d)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Z31)
	c.VPXORD(reg.Z30, reg.Z30, reg.Z30)
	reluLoop512(c, n, []reg.Register{x, d}, nil, func(k reg.Register) {
		load512(c, operand.Mem{Base: x}, k, reg.Z0)
		c.VCMPPS(operand.U8(cmpGTOQ), reg.Z30, reg.Z0, reg.K2)
		// slope·x + 0: a negative x with slope 0 gives +0, as in Caffe.
		c.VMOVAPS(reg.Z30, reg.Z1)
		c.VFMADD231PS(reg.Z31, reg.Z0, reg.Z1)
		c.VMOVAPS(reg.Z0, reg.K2, reg.Z1)
		store512(c, reg.Z1, k, operand.Mem{Base: d})
	})
}

// reluGrad512 emits reluGradAVX512: dx[i] = dy[i] if x[i] > 0, else
// slope*dy[i].
func reluGrad512(c *build.Context) {
	c.Function("reluGradAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dx, dy, x []float32, slope float32)")
	c.Doc("reluGradAVX512 sets dx[i] = dy[i] if x[i] > 0, else slope*dy[i], for i < len(x).")
	n, x, dy, dx := reg.RCX, reg.RSI, reg.RDX, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dy").Base(), dy)
	c.Load(c.Param("dx").Base(), dx)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Z31)
	c.VPXORD(reg.Z30, reg.Z30, reg.Z30)
	reluLoop512(c, n, []reg.Register{x, dy, dx}, nil, func(k reg.Register) {
		load512(c, operand.Mem{Base: x}, k, reg.Z0)
		load512(c, operand.Mem{Base: dy}, k, reg.Z2)
		c.VCMPPS(operand.U8(cmpGTOQ), reg.Z30, reg.Z0, reg.K2)
		c.VMULPS(reg.Z31, reg.Z2, reg.Z1)
		c.VMOVAPS(reg.Z2, reg.K2, reg.Z1)
		store512(c, reg.Z1, k, operand.Mem{Base: dx})
	})
}

// relu256 emits reluAVX2 for len(x) rounded down to a multiple of 8.
func relu256(c *build.Context) {
	c.Function("reluAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, x []float32, slope float32)")
	c.Doc("reluAVX2 sets dst[i] = x[i] if x[i] > 0, else slope*x[i], for i < len(x) rounded down to a multiple of 8.")
	n, x, d := reg.RCX, reg.RSI, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dst").Base(), d)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Y15)
	c.VXORPS(reg.Y14, reg.Y14, reg.Y14)
	c.SHRQ(operand.U8(3), n)
	c.JZ(operand.LabelRef("done"))
	c.Label("loop")
	c.VMOVUPS(operand.Mem{Base: x}, reg.Y0)
	c.VCMPPS(operand.U8(cmpGTOQ), reg.Y14, reg.Y0, reg.Y2)
	c.VXORPS(reg.Y1, reg.Y1, reg.Y1)
	c.VFMADD231PS(reg.Y15, reg.Y0, reg.Y1) // slope·x + 0
	c.VBLENDVPS(reg.Y2, reg.Y0, reg.Y1, reg.Y1)
	c.VMOVUPS(reg.Y1, operand.Mem{Base: d})
	c.ADDQ(operand.U8(32), x)
	c.ADDQ(operand.U8(32), d)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// reluGrad256 emits reluGradAVX2 for len(x) rounded down to a multiple
// of 8.
func reluGrad256(c *build.Context) {
	c.Function("reluGradAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dx, dy, x []float32, slope float32)")
	c.Doc("reluGradAVX2 sets dx[i] = dy[i] if x[i] > 0, else slope*dy[i], for i < len(x) rounded down to a multiple of 8.")
	n, x, dy, dx := reg.RCX, reg.RSI, reg.RDX, reg.RDI
	c.Load(c.Param("x").Len(), n)
	c.Load(c.Param("x").Base(), x)
	c.Load(c.Param("dy").Base(), dy)
	c.Load(c.Param("dx").Base(), dx)
	c.VBROADCASTSS(paramAddr(c, "slope"), reg.Y15)
	c.VXORPS(reg.Y14, reg.Y14, reg.Y14)
	c.SHRQ(operand.U8(3), n)
	c.JZ(operand.LabelRef("done"))
	c.Label("loop")
	c.VMOVUPS(operand.Mem{Base: x}, reg.Y0)
	c.VMOVUPS(operand.Mem{Base: dy}, reg.Y3)
	c.VCMPPS(operand.U8(cmpGTOQ), reg.Y14, reg.Y0, reg.Y2)
	c.VMULPS(reg.Y15, reg.Y3, reg.Y1)
	c.VBLENDVPS(reg.Y2, reg.Y3, reg.Y1, reg.Y1)
	c.VMOVUPS(reg.Y1, operand.Mem{Base: dx})
	c.ADDQ(operand.U8(32), x)
	c.ADDQ(operand.U8(32), dy)
	c.ADDQ(operand.U8(32), dx)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// pool512 emits maxPoolRowAVX512 (max) or avePoolRowAVX512: n outputs of
// one row of a pooling whose windows are rows×kw values of src, rows ld
// floats apart, window o starting at src[o*stride] (stride 1 or 2):
//
//	max: dst[o] = the first largest window value greater than −MaxFloat32
//	     (−MaxFloat32 if none), arg[o] = base + its offset in src (−1 if none)
//	ave: dst[o] = the sum of the window's values, added in row-major order,
//	     divided by div
//
// Sixteen outputs are computed at once; the last block is masked by K1.
// With stride 2 the window column j of 16 outputs is the even lanes of the
// 32 floats at column j, which VPERMT2PS gathers into one vector; the
// opmasks K2 and K3 limit those loads to the floats a block needs.
//
// With multi, it emits maxPoolRowsAVX512 or avePoolRowsAVX512, which
// compute count such rows: row r of outputs at dst[r*dstRow] (and
// arg[r*dstRow]) from the windows starting at src[r*srcRow], its indexes
// based at base + r*srcRow. These take the rows two at a time while two
// are left, with a second set of vectors, so that the two rows' chains of
// compares (or additions) overlap.
func pool512(c *build.Context, tab operand.Mem, isMax, multi bool) {
	name := "avePoolRowAVX512"
	sig := "func(dst *float32, src *float32, n, rows, ld, kw, stride int, div float32)"
	doc := "avePoolRowAVX512 sets dst[o] to the sum of src[i*ld+o*stride+j] for i < rows and j < kw (added in that order) divided by div, for o < n; stride is 1 or 2 and n, rows, kw >= 1."
	if isMax {
		name = "maxPoolRowAVX512"
		sig = "func(dst *float32, arg *int32, src *float32, n, rows, ld, kw, stride int, base int32)"
		doc = "maxPoolRowAVX512 sets dst[o] to the first largest src[i*ld+o*stride+j] (i < rows, j < kw, row-major) greater than -MaxFloat32, and arg[o] to base plus its offset, for o < n; an output with no such value gets -MaxFloat32 and -1. stride is 1 or 2 and n, rows, kw >= 1."
	}
	if multi {
		name = strings.Replace(name, "Row", "Rows", 1)
		sig = strings.TrimSuffix(sig, ")") + ", count, dstRow, srcRow int)"
		doc = name + " computes count rows of outputs as " + strings.Replace(name, "Rows", "Row", 1) +
			" does one: row r at dst[r*dstRow:] from the windows at src[r*srcRow:]"
		if isMax {
			doc += ", its indexes at arg[r*dstRow:] based at base+r*srcRow"
		}
		doc += "."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	dst, arg, src, n := reg.RDI, reg.RBX, reg.RSI, reg.RCX
	ldb, kw, stride := reg.R8, reg.R9, reg.R10
	row, col, rowsLeft, taps, t := reg.R11, reg.R12, reg.R13, reg.RDX, reg.RAX
	c.Load(c.Param("dst"), dst)
	if isMax {
		c.Load(c.Param("arg"), arg)
	}
	c.Load(c.Param("src"), src)
	c.Load(c.Param("n"), n)
	c.Load(c.Param("ld"), ldb)
	c.SHLQ(operand.U8(2), ldb)
	c.Load(c.Param("kw"), kw)
	c.Load(c.Param("stride"), stride)

	best, idx, cand, hi, cidx, ridx := reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5
	negMax, iota, evens, minus1, ones, ldv, blockIdx := reg.Z31, reg.Z30, reg.Z29, reg.Z28, reg.Z27, reg.Z26, reg.Z25
	// evens = 0, 2, …, 30 for VPERMT2PS.
	c.VMOVDQU32(tab, evens)
	if isMax {
		c.VBROADCASTSS(tab.Offset(64), negMax)
		c.VPTERNLOGD(operand.U8(0xff), minus1, minus1, minus1) // all ones = -1
		c.VPBROADCASTD(tab.Offset(68), ones)
		c.Load(c.Param("ld"), t)
		c.VPBROADCASTD(reg.EAX, ldv)
		// iota = 0, stride, 2·stride, …: evens/2·stride.
		c.VPSRLD(operand.U8(1), evens, iota)
		c.MOVQ(stride, t)
		c.VPBROADCASTD(reg.EAX, cand)
		c.VPMULLD(cand, iota, iota)
		c.Load(c.Param("base"), reg.EAX)
		c.VPBROADCASTD(reg.EAX, blockIdx)
		c.VPADDD(iota, blockIdx, blockIdx)
		// blockIdx advances by 16·stride per block.
		c.MOVQ(stride, t)
		c.SHLQ(operand.U8(4), t)
		c.VPBROADCASTD(reg.EAX, reg.Z24)
	} else {
		c.VBROADCASTSS(paramAddr(c, "div"), reg.Z24)
	}
	var locals operand.Mem
	rowIdx := reg.Z23
	if multi {
		// Locals: the row's dst, arg and src, and the rows left.
		locals = c.AllocLocal(32)
		c.MOVQ(dst, locals)
		c.MOVQ(arg, locals.Offset(8))
		c.MOVQ(src, locals.Offset(16))
		c.Load(c.Param("count"), t)
		c.MOVQ(t, locals.Offset(24))
		if isMax {
			c.VMOVDQA32(blockIdx, rowIdx)
		}
		c.Label("rowStart")
		c.MOVQ(locals, dst)
		c.MOVQ(locals.Offset(8), arg)
		c.MOVQ(locals.Offset(16), src)
		c.Load(c.Param("n"), n)
		if isMax {
			c.VMOVDQA32(rowIdx, blockIdx)
		}
	}

	// blocks emits the loop over the blocks of one row of outputs, or,
	// with pair, of two rows at once (the second srcRow floats after the
	// first, its outputs dstRow after), whose independent compares (or
	// additions) overlap; rows of few outputs otherwise wait on each
	// window value's compare before the next.
	srow := reg.R14 // pair: srcRow in bytes
	best2, idx2, cand2, hi2, cidx2, ridx2 := reg.Z6, reg.Z7, reg.Z8, reg.Z9, reg.Z10, reg.Z11
	srcRowV := reg.Z21 // max, multi: srcRow in every lane
	blocks := func(pair bool, tag string) {
		second := func(m operand.Mem) operand.Mem { return operand.Mem{Base: m.Base, Index: srow, Scale: 1, Disp: m.Disp} }
		c.Label("block" + tag)
		// K1: the outputs of this block; K2, K3: the floats its stride-2
		// loads need (2·count−1 of the 32).
		c.MOVQ(operand.U32(16), t)
		c.CMPQ(n, t)
		c.CMOVQLT(n, t)
		setMask(c, reg.EAX, reg.EDX, reg.K1)
		c.LEAQ(operand.Mem{Base: t, Index: t, Scale: 1, Disp: -1}, t)
		setMask(c, reg.EAX, reg.EDX, reg.K2)
		c.SUBQ(operand.U8(16), t)
		c.XORQ(reg.RDX, reg.RDX)
		c.CMPQ(t, reg.RDX)
		c.CMOVQLT(reg.RDX, t)
		setMask(c, reg.EAX, reg.EDX, reg.K3)

		if isMax {
			c.VMOVAPS(negMax, best)
			c.VMOVDQA32(minus1, idx)
			c.VMOVDQA32(blockIdx, ridx)
			if pair {
				c.VMOVAPS(negMax, best2)
				c.VMOVDQA32(minus1, idx2)
				c.VPADDD(srcRowV, blockIdx, ridx2)
			}
		} else {
			c.VPXORD(best, best, best)
			if pair {
				c.VPXORD(best2, best2, best2)
			}
		}
		c.MOVQ(src, row)
		c.Load(c.Param("rows"), rowsLeft)
		c.Label("row" + tag)
		c.MOVQ(row, col)
		c.MOVQ(kw, taps)
		if isMax {
			c.VMOVDQA32(ridx, cidx)
			if pair {
				c.VMOVDQA32(ridx2, cidx2)
			}
		}
		c.Label("tap" + tag)
		c.CMPQ(stride, operand.U8(1))
		c.JNE(operand.LabelRef("even" + tag))
		c.VMOVUPS_Z(operand.Mem{Base: col}, reg.K1, cand)
		if pair {
			c.VMOVUPS_Z(second(operand.Mem{Base: col}), reg.K1, cand2)
		}
		c.JMP(operand.LabelRef("fold" + tag))
		c.Label("even" + tag)
		c.VMOVUPS_Z(operand.Mem{Base: col}, reg.K2, cand)
		c.VMOVUPS_Z(operand.Mem{Base: col, Disp: 64}, reg.K3, hi)
		c.VPERMT2PS(hi, evens, cand)
		if pair {
			c.VMOVUPS_Z(second(operand.Mem{Base: col}), reg.K2, cand2)
			c.VMOVUPS_Z(second(operand.Mem{Base: col, Disp: 64}), reg.K3, hi2)
			c.VPERMT2PS(hi2, evens, cand2)
		}
		c.Label("fold" + tag)
		if isMax {
			c.VCMPPS(operand.U8(cmpGTOQ), best, cand, reg.K4)
			if pair {
				c.VCMPPS(operand.U8(cmpGTOQ), best2, cand2, reg.K5)
			}
			c.VMOVAPS(cand, reg.K4, best)
			c.VMOVDQA32(cidx, reg.K4, idx)
			c.VPADDD(ones, cidx, cidx)
			if pair {
				c.VMOVAPS(cand2, reg.K5, best2)
				c.VMOVDQA32(cidx2, reg.K5, idx2)
				c.VPADDD(ones, cidx2, cidx2)
			}
		} else {
			c.VADDPS(cand, best, best)
			if pair {
				c.VADDPS(cand2, best2, best2)
			}
		}
		c.ADDQ(operand.U8(4), col)
		c.DECQ(taps)
		c.JNZ(operand.LabelRef("tap" + tag))
		c.ADDQ(ldb, row)
		if isMax {
			c.VPADDD(ldv, ridx, ridx)
			if pair {
				c.VPADDD(ldv, ridx2, ridx2)
			}
		}
		c.DECQ(rowsLeft)
		c.JNZ(operand.LabelRef("row" + tag))

		if !isMax {
			c.VDIVPS(reg.Z24, best, best)
			if pair {
				c.VDIVPS(reg.Z24, best2, best2)
			}
		}
		c.VMOVUPS(best, reg.K1, operand.Mem{Base: dst})
		if isMax {
			c.VMOVDQU32(idx, reg.K1, operand.Mem{Base: arg})
		}
		if pair {
			c.Load(c.Param("dstRow"), t)
			c.SHLQ(operand.U8(2), t)
			c.VMOVUPS(best2, reg.K1, operand.Mem{Base: dst, Index: t, Scale: 1})
			if isMax {
				c.VMOVDQU32(idx2, reg.K1, operand.Mem{Base: arg, Index: t, Scale: 1})
			}
		}
		if isMax {
			c.ADDQ(operand.U8(64), arg)
			c.VPADDD(reg.Z24, blockIdx, blockIdx)
		}
		c.ADDQ(operand.U8(64), dst)
		c.MOVQ(stride, t)
		c.SHLQ(operand.U8(6), t)
		c.ADDQ(t, src)
		c.SUBQ(operand.U8(16), n)
		c.JG(operand.LabelRef("block" + tag))
	}
	if !multi {
		blocks(false, "")
		c.VZEROUPPER()
		c.RET()
		return
	}
	// multi: the rows two at a time while two are left, then the last.
	c.Load(c.Param("srcRow"), srow)
	if isMax {
		c.VPBROADCASTD(reg.R14L, srcRowV)
	}
	c.SHLQ(operand.U8(2), srow)
	c.CMPQ(locals.Offset(24), operand.U8(2))
	c.JLT(operand.LabelRef("block"))
	blocks(true, "Pair")
	// Past two rows.
	c.Load(c.Param("dstRow"), t)
	c.SHLQ(operand.U8(3), t)
	c.ADDQ(t, locals)
	c.ADDQ(t, locals.Offset(8))
	c.MOVQ(srow, t)
	c.SHLQ(operand.U8(1), t)
	c.ADDQ(t, locals.Offset(16))
	if isMax {
		c.VPADDD(srcRowV, rowIdx, rowIdx)
		c.VPADDD(srcRowV, rowIdx, rowIdx)
	}
	c.SUBQ(operand.U8(2), locals.Offset(24))
	c.JNZ(operand.LabelRef("rowStart"))
	c.VZEROUPPER()
	c.RET()
	blocks(false, "")
	// multi: the last row (of an odd count).
	c.Load(c.Param("dstRow"), t)
	c.SHLQ(operand.U8(2), t)
	c.ADDQ(t, locals)
	c.ADDQ(t, locals.Offset(8))
	c.ADDQ(srow, locals.Offset(16))
	if isMax {
		c.VPADDD(srcRowV, rowIdx, rowIdx)
	}
	c.DECQ(locals.Offset(24))
	c.JNZ(operand.LabelRef("rowStart"))
	c.VZEROUPPER()
	c.RET()
}

// maxPoolBack512 emits maxPoolBackAVX512, the backward pass of a max
// pooling whose windows do not overlap: for i < n with 0 <= mask[i] <
// ndx, dx[mask[i]] = 0 + dy[i], sixteen at a time by VSCATTERDPS. The
// windows being disjoint, no two outputs of a block share an index.
func maxPoolBack512(c *build.Context) {
	c.Function("maxPoolBackAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dx *float32, ndx int, dy *float32, mask *int32, n int)")
	c.Doc("maxPoolBackAVX512 sets dx[mask[i]] = 0 + dy[i] for i < n where 0 <= mask[i] < ndx; no two such mask[i] may be equal.")
	dx, dy, mask, n, t := reg.RDI, reg.RSI, reg.RBX, reg.RCX, reg.RAX
	c.Load(c.Param("dx"), dx)
	c.Load(c.Param("dy"), dy)
	c.Load(c.Param("mask"), mask)
	c.Load(c.Param("n"), n)
	zeros, limit := reg.Z31, reg.Z30
	c.VPXORD(zeros, zeros, zeros)
	c.Load(c.Param("ndx"), t)
	c.VPBROADCASTD(reg.EAX, limit)
	c.Label("block")
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.MOVQ(operand.U32(16), t)
	c.CMPQ(n, t)
	c.CMOVQLT(n, t)
	setMask(c, reg.EAX, reg.EDX, reg.K1)
	c.VMOVDQU32_Z(operand.Mem{Base: mask}, reg.K1, reg.Z0)
	c.VPCMPUD(operand.U8(1), limit, reg.Z0, reg.K1, reg.K2) // K2 = K1 and 0 <= mask < ndx (unsigned)
	c.VMOVUPS_Z(operand.Mem{Base: dy}, reg.K1, reg.Z1)
	c.VADDPS(zeros, reg.Z1, reg.Z1)
	c.VSCATTERDPS(reg.Z1, reg.K2, operand.Mem{Base: dx, Index: reg.Z0, Scale: 4})
	c.ADDQ(operand.U8(64), dy)
	c.ADDQ(operand.U8(64), mask)
	c.SUBQ(operand.U8(16), n)
	c.JMP(operand.LabelRef("block"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// poolConsts emits the pooling constants: the 16 lane indexes 0, 2, …,
// 30, then −MaxFloat32 and the int32 1.
func poolConsts(c *build.Context) operand.Mem {
	m := c.StaticGlobal("poolConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 16; l++ {
		c.AddDatum(4*l, operand.U32(2*l))
	}
	c.AddDatum(64, operand.U32(math.Float32bits(-math.MaxFloat32)))
	c.AddDatum(68, operand.U32(1))
	return m
}

// convRows512 emits im2colRowsAVX512 or col2imRowsAVX512, the inner loops
// of Im2col and Col2im for one (channel, kernel row, kernel column) row of
// the column matrix: rows runs of cols values, of which the lanes
// [lo, hi) come from (or go back to) the image, at
//
//	image[off + r*ld + o*stride]   for run r and lane o
//
// and the other lanes read the padding (im2col writes zeros there; col2im
// ignores them). The runs lie one after the other in the column matrix.
// A run of at most 16 lanes is one vector whose opmasks are computed once;
// longer runs compute them per vector. A stride of 1 loads and stores
// contiguous lanes; larger strides gather (and col2im scatters) through
// the lane offsets o*stride, which are distinct, so the scatter has no
// conflicts.
func convRows512(c *build.Context, tab operand.Mem, im2col bool) {
	name := "col2imRowsAVX512"
	doc := "col2imRowsAVX512 adds col[r*cols+o] to img[off+r*ld+o*stride] for r < rows and lo <= o < hi (rows, cols >= 1; 0 <= lo < hi <= cols)."
	sig := "func(img *float32, col *float32, off, ld, rows, cols, lo, hi, stride int)"
	if im2col {
		name = "im2colRowsAVX512"
		doc = "im2colRowsAVX512 sets col[r*cols+o] to img[off+r*ld+o*stride] for r < rows and lo <= o < hi, and to zero for the other o < cols (rows, cols >= 1; 0 <= lo < hi <= cols)."
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
	img, col, ld, rows, cols, lo, hi, stride := reg.RDI, reg.RSI, reg.R8, reg.RCX, reg.RDX, reg.R9, reg.R10, reg.R11
	colBytes, t, u, b := reg.R12, reg.RAX, reg.RBX, reg.R13
	c.Load(c.Param("img"), img)
	c.Load(c.Param("col"), col)
	c.Load(c.Param("off"), t)
	c.LEAQ(operand.Mem{Base: img, Index: t, Scale: 4}, img)
	c.Load(c.Param("ld"), ld)
	c.SHLQ(operand.U8(2), ld)
	c.Load(c.Param("rows"), rows)
	c.Load(c.Param("cols"), cols)
	c.Load(c.Param("lo"), lo)
	c.Load(c.Param("hi"), hi)
	c.Load(c.Param("stride"), stride)
	c.MOVQ(cols, colBytes)
	c.SHLQ(operand.U8(2), colBytes)
	// Z30: the lane offsets o*stride of a gather.
	c.VMOVDQU32(tab, reg.Z30)
	c.VPSRLD(operand.U8(1), reg.Z30, reg.Z30)
	c.VPBROADCASTD(reg.R11L, reg.Z29)
	c.VPMULLD(reg.Z29, reg.Z30, reg.Z30)

	// op emits the work on one vector: image lanes at ip (a register
	// holding the address of lane 0), column lanes at cp; K1 masks the
	// column vector, K2 the image lanes.
	op := func(ip, cp reg.Register, strided bool) {
		if im2col {
			if strided {
				c.KMOVW(reg.K2, reg.K3)
				c.VPXORD(reg.Z0, reg.Z0, reg.Z0)
				c.VGATHERDPS(operand.Mem{Base: ip, Index: reg.Z30, Scale: 4}, reg.K3, reg.Z0)
			} else {
				c.VMOVUPS_Z(operand.Mem{Base: ip}, reg.K2, reg.Z0)
			}
			c.VMOVUPS(reg.Z0, reg.K1, operand.Mem{Base: cp})
			return
		}
		c.VMOVUPS_Z(operand.Mem{Base: cp}, reg.K2, reg.Z0)
		if strided {
			c.KMOVW(reg.K2, reg.K3)
			c.VPXORD(reg.Z1, reg.Z1, reg.Z1)
			c.VGATHERDPS(operand.Mem{Base: ip, Index: reg.Z30, Scale: 4}, reg.K3, reg.Z1)
			c.VADDPS(reg.Z0, reg.Z1, reg.Z1)
			c.KMOVW(reg.K2, reg.K3)
			c.VSCATTERDPS(reg.Z1, reg.K3, operand.Mem{Base: ip, Index: reg.Z30, Scale: 4})
		} else {
			c.VMOVUPS_Z(operand.Mem{Base: ip}, reg.K2, reg.Z1)
			c.VADDPS(reg.Z0, reg.Z1, reg.Z1)
			c.VMOVUPS(reg.Z1, reg.K2, operand.Mem{Base: ip})
		}
	}
	// masks sets K1 to the lanes below min(cols-b, 16) and K2 to the lanes
	// [lo-b, hi-b) clipped to [0, 16), for the vector of lanes from b.
	// clamp16 limits t to 16 (BZHI reads only the low byte of its index),
	// using u.
	clamp16 := func() {
		c.MOVQ(operand.U32(16), u)
		c.CMPQ(t, u)
		c.CMOVQGT(u, t)
	}
	masks := func(b reg.Register) {
		c.MOVQ(cols, t)
		c.SUBQ(b, t)
		clamp16()
		setMask(c, reg.EAX, reg.EBX, reg.K1)
		c.XORQ(u, u)
		c.MOVQ(hi, t)
		c.SUBQ(b, t)
		c.CMOVQLT(u, t)
		clamp16()
		setMask(c, reg.EAX, reg.EBX, reg.K2)
		c.XORQ(u, u)
		c.MOVQ(lo, t)
		c.SUBQ(b, t)
		c.CMOVQLT(u, t)
		clamp16()
		setMask(c, reg.EAX, reg.EBX, reg.K4)
		c.KANDNW(reg.K2, reg.K4, reg.K2) // K2 &^ K4
	}
	rowsLoop := func(strided bool, tag string) {
		// advance moves the image and column pointers to the next run.
		advance := func() {
			c.ADDQ(ld, img)
			c.ADDQ(colBytes, col)
		}
		c.CMPQ(cols, operand.U8(16))
		c.JG(operand.LabelRef("long" + tag))
		c.XORQ(b, b)
		masks(b)
		c.Label("short" + tag)
		op(img, col, strided)
		advance()
		c.DECQ(rows)
		c.JNZ(operand.LabelRef("short" + tag))
		c.JMP(operand.LabelRef("done"))

		c.Label("long" + tag)
		c.XORQ(b, b)
		c.Label("vec" + tag)
		masks(b)
		// The vector's lanes: image at img + 4·b·stride, column at col + 4·b.
		c.MOVQ(b, t)
		c.IMULQ(stride, t)
		c.LEAQ(operand.Mem{Base: img, Index: t, Scale: 4}, t)
		c.LEAQ(operand.Mem{Base: col, Index: b, Scale: 4}, u)
		op(t, u, strided)
		c.ADDQ(operand.U8(16), b)
		c.CMPQ(b, cols)
		c.JL(operand.LabelRef("vec" + tag))
		advance()
		c.DECQ(rows)
		c.JNZ(operand.LabelRef("long" + tag))
		c.JMP(operand.LabelRef("done"))
	}
	c.CMPQ(stride, operand.U8(1))
	c.JNE(operand.LabelRef("strided"))
	rowsLoop(false, "1")
	c.Label("strided")
	rowsLoop(true, "s")
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// col2imImageRows512 emits col2imImageRowAVX512, the stride-1 col2im of
// one image row: each 16-lane vector v of the row is the sum, over the
// window rows ki < kiCount and columns kj < kw, of a masked load from the
// column matrix, accumulated in a register in (ki, kj) order and stored
// once. The lane masks and the offsets of the loads (which do not depend
// on ki) come from tables indexed v*kw+kj; the column pointer advances by
// kiStep floats per window row.
func col2imImageRows512(c *build.Context) {
	c.Function("col2imImageRowAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst, col *float32, masks *uint16, offs *int32, width, kiCount, kiStep, kw int)")
	c.Doc("col2imImageRowAVX512 sets dst[16v+l] (for 16v+l < width) to the sum over ki < kiCount and kj < kw, in that order, of col[ki*kiStep+offs[v*kw+kj]+l] for the lanes l set in masks[v*kw+kj].")
	dst, col, masks, offs, width := reg.RDI, reg.RSI, reg.R8, reg.R9, reg.RCX
	kiCount, kiStep, kw := reg.R10, reg.R11, reg.R12
	ki, kj, p, t := reg.R13, reg.RBX, reg.RDX, reg.RAX
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("col"), col)
	c.Load(c.Param("masks"), masks)
	c.Load(c.Param("offs"), offs)
	c.Load(c.Param("width"), width)
	c.Load(c.Param("kiCount"), kiCount)
	c.Load(c.Param("kiStep"), kiStep)
	c.SHLQ(operand.U8(2), kiStep)
	c.Load(c.Param("kw"), kw)
	c.Label("vec")
	c.VPXORD(reg.Z0, reg.Z0, reg.Z0)
	c.MOVQ(col, p)
	c.MOVQ(kiCount, ki)
	c.TESTQ(ki, ki)
	c.JZ(operand.LabelRef("store"))
	c.Label("row")
	c.XORQ(kj, kj)
	c.Label("tap")
	c.KMOVW(operand.Mem{Base: masks, Index: kj, Scale: 2}, reg.K1)
	c.MOVLQSX(operand.Mem{Base: offs, Index: kj, Scale: 4}, t)
	c.VADDPS(operand.Mem{Base: p, Index: t, Scale: 4}, reg.Z0, reg.K1, reg.Z0)
	c.INCQ(kj)
	c.CMPQ(kj, kw)
	c.JL(operand.LabelRef("tap"))
	c.ADDQ(kiStep, p)
	c.DECQ(ki)
	c.JNZ(operand.LabelRef("row"))
	c.Label("store")
	// The store mask: the lanes below min(width, 16).
	c.MOVQ(width, t)
	c.MOVQ(operand.U32(16), kj)
	c.CMPQ(t, kj)
	c.CMOVQGT(kj, t)
	setMask(c, reg.EAX, reg.EBX, reg.K2)
	c.VMOVUPS(reg.Z0, reg.K2, operand.Mem{Base: dst})
	c.ADDQ(operand.U8(64), dst)
	c.LEAQ(operand.Mem{Base: masks, Index: kw, Scale: 2}, masks)
	c.LEAQ(operand.Mem{Base: offs, Index: kw, Scale: 4}, offs)
	c.SUBQ(operand.U8(16), width)
	c.JG(operand.LabelRef("vec"))
	c.VZEROUPPER()
	c.RET()
}

// im2colChannel512 emits im2colChannelAVX512, the stride-1 im2col of one
// channel: for every kernel offset (ki, kj) the outH×outW row of the
// column matrix, ldc floats after the previous one, holds the image values
// at (oy+ki·dilH−padH, ox+kj·dilW−padW), zero in the padding. The row is
// written a 16-lane vector of output columns at a time, for all output
// rows: rows above and below the image are zeros, the others one masked
// load each. The opmasks of a vector depend only on kj, so they are
// computed once per vector.
func im2colChannel512(c *build.Context) {
	c.Function("im2colChannelAVX512")
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr("func(col, img *float32, ldc, height, width, outH, outW, kh, kw, padH, padW, dilH, dilW int)")
	c.Doc("im2colChannelAVX512 writes the kh·kw rows (ldc floats apart) of the stride-1 column matrix of one height×width channel.")
	// Frame-resident arguments are reloaded where needed; the registers:
	ki, kj, v := reg.R8, reg.R9, reg.R10 // loop counters (v in floats)
	oy, oy0, oy1 := reg.R11, reg.R12, reg.R13
	src, dst, t, u := reg.RSI, reg.RDI, reg.RAX, reg.RBX
	outW, width := reg.RCX, reg.RDX
	arg := func(name string) operand.Mem { return paramAddr(c, name) }
	c.Load(c.Param("outW"), outW)
	c.Load(c.Param("width"), width)
	c.VPXORD(reg.Z1, reg.Z1, reg.Z1) // zeros
	c.XORQ(ki, ki)
	c.Label("ki")
	im2colBounds(c, im2colRegs{ki: ki, oy0: oy0, oy1: oy1, t: t, u: u})
	c.XORQ(kj, kj)
	c.Label("kj")
	c.XORQ(v, v)
	c.Label("v")
	// Store mask K1: the lanes below min(outW − v, 16).
	c.MOVQ(outW, t)
	c.SUBQ(v, t)
	c.MOVQ(operand.U32(16), u)
	c.CMPQ(t, u)
	c.CMOVQGT(u, t)
	setMask(c, reg.EAX, reg.EBX, reg.K1)
	// Load mask K2: output columns ox with 0 <= ox+off < width, off =
	// kj·dilW − padW, that is [max(0, −off), min(outW, width − off)),
	// relative to v and clipped to the vector.
	c.MOVQ(kj, t)
	c.IMULQ(arg("dilW"), t)
	c.SUBQ(arg("padW"), t) // t = off
	c.MOVQ(width, u)
	c.SUBQ(t, u) // u = width − off
	c.CMPQ(u, outW)
	c.CMOVQGT(outW, u) // u = hi
	c.NEGQ(t)          // t = −off
	c.SUBQ(v, u)
	c.SUBQ(v, t)
	// Clamp both to [0, 16] (oy is free here).
	for _, r := range []reg.Register{t, u} {
		c.MOVQ(operand.U32(0), oy)
		c.CMPQ(r, oy)
		c.CMOVQLT(oy, r)
		c.MOVQ(operand.U32(16), oy)
		c.CMPQ(r, oy)
		c.CMOVQGT(oy, r)
	}
	c.MOVL(operand.U32(0xffffffff), reg.R11L)
	c.BZHIL(reg.EBX, reg.R11L, reg.R11L)
	c.KMOVW(reg.R11L, reg.K2)
	c.MOVL(operand.U32(0xffffffff), reg.R11L)
	c.BZHIL(reg.EAX, reg.R11L, reg.R11L)
	c.KMOVW(reg.R11L, reg.K3)
	c.KANDNW(reg.K2, reg.K3, reg.K2) // K2 &^ K3
	im2colPointers(c, im2colRegs{ki: ki, kj: kj, v: v, oy0: oy0, src: src, dst: dst, t: t, u: u, outW: outW, width: width})
	c.XORQ(oy, oy)
	r := im2colRegs{ki: ki, kj: kj, v: v, oy: oy, oy0: oy0, oy1: oy1, src: src, dst: dst, t: t, u: u, outW: outW}
	im2colRows(c, r, "",
		func() { c.VMOVUPS(reg.Z1, reg.K1, operand.Mem{Base: dst}) },
		func() {
			c.VMOVUPS_Z(operand.Mem{Base: src}, reg.K2, reg.Z0)
			c.VMOVUPS(reg.Z0, reg.K1, operand.Mem{Base: dst})
		})
	im2colNext(c, r, 16)
}
