package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Winograd's F(2×2, 3×3) transforms of the direct convolution (package
// kernel's winograd.go), channel by channel, on vectors of interleaved
// images:
//
//	winoIn   the 4×4 block d of a channel becomes the 16 vectors
//	         V = Bᵀ d B: first t = Bᵀ d (rows d0−d2, d1+d2, d2−d1,
//	         d1−d3), then each row of t times B (the same pattern along
//	         the row), each position's vector stored to its own plane
//	winoOut  the 16 products m of a channel become the 2×2 outputs
//	         Aᵀ m A: first s = Aᵀ m (rows (m0+m1)+m2 and (m1−m2)−m3),
//	         then the same along the rows of s
//
// The operations and their order are those of winoInGo and winoOutGo, so
// the results are theirs bit for bit. Each row of t (s) takes its inputs
// through memory operands, which keeps the AVX2 kernels within sixteen
// registers.

func buildWinograd(c *build.Context) {
	for _, isa := range []struct {
		name  string
		vec   func(int) reg.VecPhysical
		regs  int
		bytes int
	}{{"AVX512", zmm, 32, 64}, {"AVX2", ymm, 16, 32}} {
		winoIn(c, isa.name, isa.vec, isa.regs, isa.bytes)
		winoOut(c, isa.name, isa.vec, isa.regs, isa.bytes)
	}
	half := buildWinoFilter(c)
	buildWinoFilterAVX2(c, half)
}

// winoIn emits winoIn<isa>.
func winoIn(c *build.Context, isa string, vec func(int) reg.VecPhysical, regs, bytes int) {
	rows := [4]reg.Register{reg.RSI, reg.R10, reg.R11, reg.R12}
	outs := [4]reg.Register{reg.RDI, reg.R13, reg.R14, reg.R15}
	pix, pix3, step, step3, n, rs := reg.R8, reg.R9, reg.RDX, reg.RBX, reg.RCX, reg.RAX
	name := "winoIn" + isa
	winoFunc(c, name, "func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int)",
		"writes Winograd's input transform of n channels (see winoInGo).",
		[]string{"dst", "dstStep", "src", "pixStep", "rowStep", "n"}, outs[0], step, rows[0], pix, rs, n)
	c.LEAQ(operand.Mem{Base: pix, Index: pix, Scale: 2}, pix3)
	c.LEAQ(operand.Mem{Base: step, Index: step, Scale: 2}, step3)
	for i := 1; i < 4; i++ {
		c.LEAQ(operand.Mem{Base: rows[i-1], Index: rs, Scale: 1}, rows[i])
		c.LEAQ(operand.Mem{Base: outs[i-1], Index: step, Scale: 4}, outs[i])
	}
	d := func(i, j int) operand.Mem { return stepMem(rows[i], j, pix, pix3, pix) }
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_end"))
	c.Label(name + "_loop")
	// Row i of t = Bᵀ d: (first, op, second) of d's rows.
	type rowOp struct {
		a, b int
		sub  bool
	}
	ops := [4]rowOp{{0, 2, true}, {1, 2, false}, {2, 1, true}, {1, 3, true}}
	for i, op := range ops {
		base := (i % (regs / 8)) * 8
		t := [4]reg.VecPhysical{vec(base), vec(base + 1), vec(base + 2), vec(base + 3)}
		o := [4]reg.VecPhysical{vec(base + 4), vec(base + 5), vec(base + 6), vec(base + 7)}
		for j := range 4 {
			c.VMOVUPS(d(op.a, j), t[j])
			if op.sub {
				c.VSUBPS(d(op.b, j), t[j], t[j])
			} else {
				c.VADDPS(d(op.b, j), t[j], t[j])
			}
		}
		// Row i of V = t B.
		c.VSUBPS(t[2], t[0], o[0])
		c.VADDPS(t[2], t[1], o[1])
		c.VSUBPS(t[1], t[2], o[2])
		c.VSUBPS(t[3], t[1], o[3])
		for j := range 4 {
			c.VMOVUPS(o[j], stepMem(outs[i], j, step, step3, step))
		}
	}
	for i := range 4 {
		c.ADDQ(operand.U8(bytes), rows[i])
		c.ADDQ(operand.U8(bytes), outs[i])
	}
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_end")
	c.VZEROUPPER()
	c.RET()
}

// winoOut emits winoOut<isa>.
func winoOut(c *build.Context, isa string, vec func(int) reg.VecPhysical, regs, bytes int) {
	ins := [4]reg.Register{reg.RSI, reg.R10, reg.R11, reg.R12}
	y0, y1 := reg.RDI, reg.R13
	pix, step, step3, n := reg.R8, reg.RDX, reg.RBX, reg.RCX
	name := "winoOut" + isa
	winoFunc(c, name, "func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int)",
		"writes Winograd's output transform of n channels (see winoOutGo).",
		[]string{"dst", "dstPix", "dstRow", "src", "srcStep", "n"}, y0, pix, y1, ins[0], step, n)
	c.ADDQ(y0, y1)
	c.LEAQ(operand.Mem{Base: step, Index: step, Scale: 2}, step3)
	for i := 1; i < 4; i++ {
		c.LEAQ(operand.Mem{Base: ins[i-1], Index: step, Scale: 4}, ins[i])
	}
	m := func(i, j int) operand.Mem { return stepMem(ins[i], j, step, step3, step) }
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_end"))
	c.Label(name + "_loop")
	// s = Aᵀ m: s0 in registers 0-3, s1 in 4-7.
	s := func(i, j int) reg.VecPhysical { return vec(4*i + j) }
	for j := range 4 {
		c.VMOVUPS(m(0, j), s(0, j))
		c.VADDPS(m(1, j), s(0, j), s(0, j))
		c.VADDPS(m(2, j), s(0, j), s(0, j))
		c.VMOVUPS(m(1, j), s(1, j))
		c.VSUBPS(m(2, j), s(1, j), s(1, j))
		c.VSUBPS(m(3, j), s(1, j), s(1, j))
	}
	// Y = s A, row by row.
	for i, y := range []reg.Register{y0, y1} {
		a, b := vec(8+2*i), vec(9+2*i)
		c.VADDPS(s(i, 1), s(i, 0), a)
		c.VADDPS(s(i, 2), a, a)
		c.VSUBPS(s(i, 2), s(i, 1), b)
		c.VSUBPS(s(i, 3), b, b)
		c.VMOVUPS(a, operand.Mem{Base: y})
		c.VMOVUPS(b, operand.Mem{Base: y, Index: pix, Scale: 1})
	}
	for i := range 4 {
		c.ADDQ(operand.U8(bytes), ins[i])
	}
	c.ADDQ(operand.U8(bytes), y0)
	c.ADDQ(operand.U8(bytes), y1)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_end")
	c.VZEROUPPER()
	c.RET()
}

// buildWinoFilter emits winoFilterAVX512, which transforms 16 kernels of 3×3 weights at a time into
// Winograd's U = G g Gᵀ (package kernel's winoFilter, the same operations
// in the same order): the kernels' nine weights are gathered through a
// table of byte offsets (the kernels lie anywhere in the weights), and
// each of the 16 values of U goes, for the 16 kernels side by side, to
// its own plane, at dst plus a byte offset from the table planes. It
// returns the constant ½ it defines.
func buildWinoFilter(c *build.Context) operand.Mem {
	half := c.StaticGlobal("winoHalf")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	c.AddDatum(0, operand.F32(0.5))
	name := "winoFilterAVX512"
	dst, planes, src, idx, n, off := reg.RDI, reg.R8, reg.RSI, reg.RDX, reg.RCX, reg.R9
	winoFunc(c, name, "func(dst *float32, planes *int64, src *float32, idx *int32, n int)",
		"writes Winograd's weight transform of n blocks of 16 kernels (see winoFilter).",
		[]string{"dst", "planes", "src", "idx", "n"}, dst, planes, src, idx, n)
	h, ix := zmm(30), zmm(31)
	c.VBROADCASTSS(half, h)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_end"))
	c.Label(name + "_loop")
	c.VMOVDQU32(operand.Mem{Base: idx}, ix)
	for e := range 9 {
		c.KXNORW(reg.K1, reg.K1, reg.K1)
		c.VGATHERDPS(operand.Mem{Base: src, Index: ix, Scale: 1, Disp: 4 * e}, reg.K1, zmm(e))
	}
	// t = G g, column by column: rows 0 and 3 are g's rows 0 and 2.
	t := [4][3]reg.VecPhysical{}
	for j := range 3 {
		a, b, cc := zmm(j), zmm(3+j), zmm(6+j)
		t1, t2 := zmm(9+j), zmm(12+j)
		c.VADDPS(b, a, t1)
		c.VADDPS(cc, t1, t1)
		c.VMULPS(h, t1, t1)
		c.VSUBPS(b, a, t2)
		c.VADDPS(cc, t2, t2)
		c.VMULPS(h, t2, t2)
		t[0][j], t[1][j], t[2][j], t[3][j] = a, t1, t2, cc
	}
	store := func(xi int, v reg.VecPhysical) {
		c.MOVQ(operand.Mem{Base: planes, Disp: 8 * xi}, off)
		c.VMOVUPS(v, operand.Mem{Base: dst, Index: off, Scale: 1})
	}
	// U = t Gᵀ, row by row.
	for i := range 4 {
		a, b, cc := t[i][0], t[i][1], t[i][2]
		u1, u2 := zmm(15+2*i), zmm(16+2*i)
		c.VADDPS(b, a, u1)
		c.VADDPS(cc, u1, u1)
		c.VMULPS(h, u1, u1)
		c.VSUBPS(b, a, u2)
		c.VADDPS(cc, u2, u2)
		c.VMULPS(h, u2, u2)
		store(4*i, a)
		store(4*i+1, u1)
		store(4*i+2, u2)
		store(4*i+3, cc)
	}
	c.ADDQ(operand.U8(64), dst)
	c.ADDQ(operand.U8(64), idx)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_end")
	c.VZEROUPPER()
	c.RET()
	return half
}

// buildWinoFilterAVX2 emits winoFilterAVX2: winoFilterAVX512's blocks of
// 16 kernels in two halves of 8, within sixteen registers: after the nine
// gathers, the rows of U are computed in the order 1, 2, 0, 3, rows 1 and
// 2 of t = G g three registers at a time (rows 0 and 3 are g's rows 0
// and 2), the same operations as winoFilter's.
func buildWinoFilterAVX2(c *build.Context, half operand.Mem) {
	name := "winoFilterAVX2"
	dst, planes, src, idx, n, off := reg.RDI, reg.R8, reg.RSI, reg.RDX, reg.RCX, reg.R9
	winoFunc(c, name, "func(dst *float32, planes *int64, src *float32, idx *int32, n int)",
		"writes Winograd's weight transform of n blocks of 16 kernels (see winoFilter).",
		[]string{"dst", "planes", "src", "idx", "n"}, dst, planes, src, idx, n)
	e := func(i int) reg.VecPhysical { return ymm(i) }
	h, ix, mask := ymm(11), ymm(9), ymm(10)
	c.VBROADCASTSS(half, h)
	c.SHLQ(operand.U8(1), n) // halves
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_end"))
	c.Label(name + "_loop")
	c.VMOVDQU(operand.Mem{Base: idx}, ix)
	for k := range 9 {
		c.VPCMPEQD(mask, mask, mask)
		c.VGATHERDPS(mask, operand.Mem{Base: src, Index: ix, Scale: 1, Disp: 4 * k}, e(k))
	}
	store := func(xi int, v reg.VecPhysical) {
		c.MOVQ(operand.Mem{Base: planes, Disp: 8 * xi}, off)
		c.VMOVUPS(v, operand.Mem{Base: dst, Index: off, Scale: 1})
	}
	// Row i of U from the row (a, b, cc) of t, into u1, u2 (a and cc go
	// as they are).
	row := func(i int, a, b, cc, u1, u2 reg.VecPhysical) {
		c.VADDPS(b, a, u1)
		c.VADDPS(cc, u1, u1)
		c.VMULPS(h, u1, u1)
		c.VSUBPS(b, a, u2)
		c.VADDPS(cc, u2, u2)
		c.VMULPS(h, u2, u2)
		store(4*i, a)
		store(4*i+1, u1)
		store(4*i+2, u2)
		store(4*i+3, cc)
	}
	t := [3]reg.VecPhysical{ymm(12), ymm(13), ymm(14)}
	u1, u2 := ymm(15), ymm(9)
	for i, sub := range []bool{false, true} {
		for j := range 3 {
			if sub {
				c.VSUBPS(e(3+j), e(j), t[j])
			} else {
				c.VADDPS(e(3+j), e(j), t[j])
			}
			c.VADDPS(e(6+j), t[j], t[j])
			c.VMULPS(h, t[j], t[j])
		}
		row(1+i, t[0], t[1], t[2], u1, u2)
	}
	row(0, e(0), e(1), e(2), u1, u2)
	row(3, e(6), e(7), e(8), u1, u2)
	c.ADDQ(operand.U8(32), dst)
	c.ADDQ(operand.U8(32), idx)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_end")
	c.VZEROUPPER()
	c.RET()
}

// winoFunc starts function name with signature sig and doc (after the
// name), and loads its parameters params, in order, into regs.
func winoFunc(c *build.Context, name, sig, doc string, params []string, regs ...reg.Register) {
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr(sig)
	c.Doc(name + " " + doc)
	for i, p := range params {
		c.Load(c.Param(p), regs[i])
	}
}

// stepMem returns the operand at base + k·step for k < 6, step being in
// one, 3·step in three and 5·step in five (those two read only for k = 3
// and 5).
func stepMem(base reg.Register, k int, one, three, five reg.Register) operand.Mem {
	switch k {
	case 0:
		return operand.Mem{Base: base}
	case 1:
		return operand.Mem{Base: base, Index: one, Scale: 1}
	case 2:
		return operand.Mem{Base: base, Index: one, Scale: 2}
	case 3:
		return operand.Mem{Base: base, Index: three, Scale: 1}
	case 4:
		return operand.Mem{Base: base, Index: one, Scale: 4}
	}
	return operand.Mem{Base: base, Index: five, Scale: 1}
}
