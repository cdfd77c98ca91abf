package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The pieces the plane kernels of pooling (poolplane.go, pool22.go) share.

// poolFunc starts the NOSPLIT function name with signature sig and doc.
func poolFunc(c *build.Context, name, sig, doc string) {
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.SignatureExpr(sig)
	c.Doc(doc)
}

// loadParams loads the arguments named by names into regs, in order.
func loadParams(c *build.Context, names []string, regs ...reg.Register) {
	for i, name := range names {
		c.Load(c.Param(name), regs[i])
	}
}

// rowStep emits the step of a strip to its next row of outputs: xp two
// input rows of width floats down, yp and mp one row of outW down (t is
// clobbered).
func rowStep(c *build.Context, xp, yp, mp, width, t reg.Register) {
	c.LEAQ(operand.Mem{Base: xp, Index: width, Scale: 8}, xp)
	c.Load(c.Param("outW"), t)
	c.LEAQ(operand.Mem{Base: yp, Index: t, Scale: 4}, yp)
	c.LEAQ(operand.Mem{Base: mp, Index: t, Scale: 4}, mp)
}

// outRowLoop emits ph2 += 2 and the jump back to label while ph2 <
// 2·outH (t is clobbered).
func outRowLoop(c *build.Context, ph2, t reg.Register, label string) {
	c.ADDQ(operand.U8(2), ph2)
	c.Load(c.Param("outH"), t)
	c.SHLQ(operand.U8(1), t)
	c.CMPQ(ph2, t)
	c.JLT(operand.LabelRef(label))
}

// clampCount emits t = min(max(t, 0), 16), using EDX (setMask reads the
// count's low byte).
func clampCount(c *build.Context, t reg.Register) {
	c.MOVL(operand.U32(0), reg.EDX)
	c.CMPQ(t, reg.RDX)
	c.CMOVQLT(reg.RDX, t)
	c.MOVL(operand.U32(16), reg.EDX)
	c.CMPQ(t, reg.RDX)
	c.CMOVQGT(reg.RDX, t)
}

// stripMasks512 emits the masks of a strip of AVX-512 kernels: K1 the
// lanes of its nl outputs left, and ks[i] the lanes of its load at column
// cb + offs[i] inside the plane of width columns (t is clobbered).
func stripMasks512(c *build.Context, nl, width, cb, t reg.Register, offs []int, ks []reg.Register) {
	c.MOVQ(nl, t)
	clampCount(c, t)
	setMask(c, reg.EAX, reg.EDX, reg.K1)
	for i, off := range offs {
		c.MOVQ(width, t)
		c.SUBQ(cb, t)
		if off > 0 {
			c.SUBQ(operand.U8(off), t)
		}
		clampCount(c, t)
		setMask(c, reg.EAX, reg.EDX, ks[i])
	}
}

// stripMasks256 emits the mask vectors of a strip of AVX2 kernels, the
// lanes below a count by comparison with the lane numbers at lanes
// (through x and k): masks(0) the lanes of its nl outputs left, and
// masks(1+i) the lanes of its load at column cb + offs[i] inside the
// plane of width columns (t is clobbered).
func stripMasks256(c *build.Context, nl, width, cb, t reg.Register, x, k reg.VecPhysical, lanes operand.Mem, masks func(int) operand.Mem, offs []int) {
	c.VMOVQ(nl, x)
	c.VPBROADCASTD(x, k)
	c.VPCMPGTD(lanes, k, k)
	c.VMOVDQU(k, masks(0))
	for i, off := range offs {
		c.MOVQ(width, t)
		c.SUBQ(cb, t)
		if off > 0 {
			c.SUBQ(operand.U8(off), t)
		}
		c.VMOVQ(t, x)
		c.VPBROADCASTD(x, k)
		c.VPCMPGTD(lanes, k, k)
		c.VMOVDQU(k, masks(1+i))
	}
}

// fullOrPartial emits the choice of a strip of AVX2 kernels between
// rows(true, "Full"), when its 8 outputs are all left (nl >= 8) and its
// cols columns from cb lie inside the plane, and rows(false, ""), both
// ending at the label stripEnd (t is clobbered).
func fullOrPartial(c *build.Context, nl, width, cb, t reg.Register, cols int, rows func(full bool, tag string)) {
	c.CMPQ(nl, operand.U8(8))
	c.JLT(operand.LabelRef("partial"))
	c.MOVQ(width, t)
	c.SUBQ(cb, t)
	c.CMPQ(t, operand.U8(cols))
	c.JLT(operand.LabelRef("partial"))
	rows(true, "Full")
	c.JMP(operand.LabelRef("stripEnd"))
	c.Label("partial")
	rows(false, "")
	c.Label("stripEnd")
}

// storeOutputs256 emits the store of a row of 8 maxima best and argmaxes
// rel of an AVX2 forward kernel, whose lanes hold the outputs 0, 1, 4, 5,
// 2, 3, 6, 7, to yp and mp: with full plainly, else under the mask
// vector at mask (through k).
func storeOutputs256(c *build.Context, best, rel, k reg.VecPhysical, yp, mp reg.Register, mask operand.Mem, full bool) {
	c.VPERMQ(operand.U8(0xd8), best, best)
	c.VPERMQ(operand.U8(0xd8), rel, rel)
	if full {
		c.VMOVUPS(best, operand.Mem{Base: yp})
		c.VMOVDQU(rel, operand.Mem{Base: mp})
	} else {
		c.VMOVDQU(mask, k)
		c.VMASKMOVPS(best, k, operand.Mem{Base: yp})
		c.VPMASKMOVD(rel, k, operand.Mem{Base: mp})
	}
}

// takeGreater512 emits, per lane, best = v and rel = r where v is
// greater than best (ordered), through K2.
func takeGreater512(c *build.Context, best, rel, v, r operand.Op) {
	c.VCMPPS(operand.U8(cmpGTOQ), best, v, reg.K2)
	c.VMOVAPS(v, reg.K2, best)
	c.VMOVDQA32(r, reg.K2, rel)
}

// backMasks256 emits the mask vectors of a strip of an AVX2 gradient
// kernel, the lanes below a count by comparison with the lane numbers
// 0 … 15 at lanes (through x, k and tmp): at outs those of its nl outputs
// left, at st0 and st1 those of its two halves of 8 columns from cb
// inside the plane of width columns (t is clobbered).
func backMasks256(c *build.Context, nl, width, cb, t reg.Register, x, k, tmp reg.VecPhysical, lanes, outs, st0, st1 operand.Mem) {
	c.VMOVQ(nl, x)
	c.VPBROADCASTD(x, tmp)
	c.VPCMPGTD(lanes, tmp, tmp)
	c.VMOVDQU(tmp, outs)
	c.MOVQ(width, t)
	c.SUBQ(cb, t)
	c.VMOVQ(t, x)
	c.VPBROADCASTD(x, k)
	c.VPCMPGTD(lanes, k, tmp)
	c.VMOVDQU(tmp, st0)
	c.VPCMPGTD(lanes.Offset(32), k, tmp)
	c.VMOVDQU(tmp, st1)
}

// planePtr is a pointer parameter of a plane kernel and whether it steps
// by an input plane (height·width floats) or an output plane (outH·outW)
// from one plane to the next.
type planePtr struct {
	name  string
	input bool
}

// stepPlane emits the end of a plane of a kernel over the parameter
// planes consecutive planes (at least 1): while planes are left, it
// counts one down, steps the pointer parameters ptrs to their next plane
// and jumps back to the label plane, where the kernel loads its
// parameters; RAX and RDX are clobbered.
func stepPlane(c *build.Context, ptrs ...planePtr) {
	c.Load(c.Param("planes"), reg.RAX)
	c.SUBQ(operand.U8(1), reg.RAX)
	c.JLE(operand.LabelRef("planesDone"))
	c.Store(reg.RAX, c.Param("planes"))
	for _, p := range ptrs {
		if p.input {
			c.Load(c.Param("height"), reg.RAX)
			c.Load(c.Param("width"), reg.RDX)
		} else {
			c.Load(c.Param("outH"), reg.RAX)
			c.Load(c.Param("outW"), reg.RDX)
		}
		c.IMULQ(reg.RDX, reg.RAX)
		c.Load(c.Param(p.name), reg.RDX)
		c.LEAQ(operand.Mem{Base: reg.RDX, Index: reg.RAX, Scale: 4}, reg.RDX)
		c.Store(reg.RDX, c.Param(p.name))
	}
	c.JMP(operand.LabelRef("plane"))
	c.Label("planesDone")
}

// overStores emits the stores of a strip of a kernel that writes whole
// vectors (with over): plain() when the strip is whole (full emits a
// jump to its label when it is) or is its plane's only strip (cb = 0),
// whose stores past a row's end land in the next row or plane, which the
// kernel writes afterwards; else, and without over, masked(). tag makes
// the labels unique in the function.
func overStores(c *build.Context, over bool, cb reg.Register, tag string, full func(label string), masked, plain func()) {
	if !over {
		masked()
		return
	}
	full("plainStore" + tag)
	c.TESTQ(cb, cb)
	c.JZ(operand.LabelRef("plainStore" + tag))
	masked()
	c.JMP(operand.LabelRef("stored" + tag))
	c.Label("plainStore" + tag)
	plain()
	c.Label("stored" + tag)
}

// storeMaxStrip emits the stores of a strip of 16 max-pooling outputs:
// best at yp and at mp the argmaxes base+rel, −1 where best is not above
// negMax (a window that held no value); the lanes of K1 where the stores
// are masked (overStores: whole vectors where nl has 16 outputs left).
func storeMaxStrip(c *build.Context, over bool, negMax, best, minus1, idx, base, rel, cb, nl, yp, mp reg.Register) {
	c.VCMPPS(operand.U8(cmpGTOQ), negMax, best, reg.K2)
	c.VMOVDQA32(minus1, idx)
	c.VPADDD(base, rel, reg.K2, idx)
	overStores(c, over, cb, "", func(label string) {
		c.CMPQ(nl, operand.U8(16))
		c.JGE(operand.LabelRef(label))
	}, func() {
		c.VMOVUPS(best, reg.K1, operand.Mem{Base: yp})
		c.VMOVDQU32(idx, reg.K1, operand.Mem{Base: mp})
	}, func() {
		c.VMOVUPS(best, operand.Mem{Base: yp})
		c.VMOVDQU32(idx, operand.Mem{Base: mp})
	})
}

// pairSeq numbers the labels of storePair.
var pairSeq int

// colsLeft emits cols = width − cb, the columns of a strip's row from
// its first inside the plane, for storePair.
func colsLeft(c *build.Context, cols, width, cb reg.Register) {
	c.MOVQ(width, cols)
	c.SUBQ(cb, cols)
}

// storePair emits the stores of a strip's 32 columns lo and hi at row,
// cols (colsLeft) of them inside the plane: the vectors whose 16 columns
// are all inside by plain stores, a vector with none inside not at all,
// others under K3 (lo) and K4 (hi). Masked stores cost several times
// plain ones on Zen 5, even with every lane set.
func storePair(c *build.Context, cols reg.Register, lo, hi reg.VecPhysical, row operand.Mem) {
	pairSeq++
	l := func(name string) string { return fmt.Sprintf("pair%s%d", name, pairSeq) }
	hiRow := row
	hiRow.Disp += 64
	c.CMPQ(cols, operand.U8(16))
	c.JLT(operand.LabelRef(l("MaskedLo")))
	c.VMOVUPS(lo, row)
	c.CMPQ(cols, operand.U8(32))
	c.JGE(operand.LabelRef(l("PlainHi")))
	c.CMPQ(cols, operand.U8(16))
	c.JEQ(operand.LabelRef(l("Done")))
	c.VMOVUPS(hi, reg.K4, hiRow)
	c.JMP(operand.LabelRef(l("Done")))
	c.Label(l("PlainHi"))
	c.VMOVUPS(hi, hiRow)
	c.JMP(operand.LabelRef(l("Done")))
	c.Label(l("MaskedLo"))
	c.VMOVUPS(lo, reg.K3, row)
	c.Label(l("Done"))
}

// wholeOrMasked emits whole() when a strip has 16 outputs or more left
// (nl >= 16), else masked().
func wholeOrMasked(c *build.Context, nl reg.Register, whole, masked func()) {
	pairSeq++
	l := func(name string) string { return fmt.Sprintf("rows%s%d", name, pairSeq) }
	c.CMPQ(nl, operand.U8(16))
	c.JLT(operand.LabelRef(l("Masked")))
	whole()
	c.JMP(operand.LabelRef(l("Done")))
	c.Label(l("Masked"))
	masked()
	c.Label(l("Done"))
}
