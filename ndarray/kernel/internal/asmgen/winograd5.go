package main

import (
	"fmt"
	"math"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Winograd's F(2×2, 5×5) transforms (package kernel's winograd.go:
// winoIn6Go, winoOut6Go), emitted from the matrices: each value is
// winoRow's sum, its terms in turn, a coefficient of ±1 taken as an
// addition or subtraction, any other multiplied first (by its absolute
// value, a vector from a table), so the sums are the Go references' bit
// for bit.
//
//	winoIn6   per channel, the columns of the 6×6 block into t = Bᵀ d,
//	          written to the 36 planes themselves (row i of t into planes
//	          6i..6i+5), then each row of t read back into registers and
//	          its values Bᵀ-combined into the same planes
//	winoOut6  per channel, s = Aᵀ m (12 registers, the 36 planes read as
//	          memory operands), then the 2×2 outputs s A

// wino5BT and wino5AT are the package's matrices (Toom-Cook at 0, 1,
// −1, 2, −½ and ∞).
var (
	wino5BT = [6][6]float32{
		{1, 1.5, -2, -1.5, 1, 0},
		{0, -1, -2.5, -0.5, 1, 0},
		{0, 1, 0.5, -2.5, 1, 0},
		{0, -0.5, -1, 0.5, 1, 0},
		{0, 2, -1, -2, 1, 0},
		{0, 1, 1.5, -2, -1.5, 1},
	}
	wino5AT = [2][6]float32{{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -0.5, 1}}
)

// wino5Consts are the absolute values of the coefficients other than 1,
// each a vector of 16 in the table.
var wino5Consts = []float32{0.5, 1.5, 2, 2.5}

func buildWinograd5(c *build.Context) {
	tab := c.StaticGlobal("wino5Consts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for i, v := range wino5Consts {
		for l := range 16 {
			// As bits: avo writes F32(2) as $(2), an integer.
			c.AddDatum(64*i+4*l, operand.U32(math.Float32bits(v)))
		}
	}
	konst := func(v float32) operand.Mem {
		for i, k := range wino5Consts {
			if k == v {
				return tab.Offset(64 * i)
			}
		}
		panic(fmt.Sprintf("asmgen: no constant %v", v))
	}
	for _, isa := range []struct {
		name  string
		vec   func(int) reg.VecPhysical
		bytes int
	}{{"AVX512", zmm, 64}, {"AVX2", ymm, 32}} {
		winoIn6(c, isa.name, isa.vec, isa.bytes, konst)
		winoOut6(c, isa.name, isa.vec, isa.bytes, konst)
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// winoEmitRow emits acc = winoRow(coef, x): x(k) a register or a memory
// operand, tmp a scratch register, zero a register of zeros.
func winoEmitRow(c *build.Context, coef []float32, x func(k int) operand.Op, acc, tmp, zero reg.VecPhysical, konst func(float32) operand.Mem) {
	first := true
	for k, ck := range coef {
		if ck == 0 {
			continue
		}
		v := x(k)
		if a := abs32(ck); a != 1 {
			if operand.IsMem(v) {
				c.VMOVUPS(v, tmp)
				c.VMULPS(konst(a), tmp, tmp)
			} else {
				c.VMULPS(konst(a), v, tmp)
			}
			v = tmp
		}
		switch {
		case first && ck < 0:
			c.VSUBPS(v, zero, acc)
		case first:
			c.VMOVUPS(v, acc)
		case ck < 0:
			c.VSUBPS(v, acc, acc)
		default:
			c.VADDPS(v, acc, acc)
		}
		first = false
	}
}

// winoIn6 emits winoIn6<isa>.
func winoIn6(c *build.Context, isa string, vec func(int) reg.VecPhysical, bytes int, konst func(float32) operand.Mem) {
	dst, step, src, pix, rs, n := reg.RDI, reg.RDX, reg.RSI, reg.R8, reg.R9, reg.RCX
	rs3, rs5, col, off := reg.R10, reg.R11, reg.R12, reg.R13
	name := "winoIn6" + isa
	winoFunc(c, name, "func(dst *float32, dstStep int, src *float32, pixStep, rowStep, n int)",
		"writes Winograd's F(2×2, 5×5) input transform of n channels (see winoIn6Go).",
		[]string{"dst", "dstStep", "src", "pixStep", "rowStep", "n"}, dst, step, src, pix, rs, n)
	c.LEAQ(operand.Mem{Base: rs, Index: rs, Scale: 2}, rs3)
	c.LEAQ(operand.Mem{Base: rs, Index: rs, Scale: 4}, rs5)
	zero, acc, tmp := vec(15), vec(14), vec(13)
	c.VXORPS(zero, zero, zero)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_end"))
	c.Label(name + "_loop")
	plane := func(xi int) operand.Mem {
		if xi == 0 {
			return operand.Mem{Base: dst}
		}
		c.IMUL3Q(operand.Imm(uint64(xi)), step, off)
		return operand.Mem{Base: dst, Index: off, Scale: 1}
	}
	// t = Bᵀ d, column by column, row i of t into planes 6i..6i+5.
	c.MOVQ(src, col)
	for j := range 6 {
		d := func(k int) operand.Op { return stepMem(col, k, rs, rs3, rs5) }
		for i := range 6 {
			winoEmitRow(c, wino5BT[i][:], d, acc, tmp, zero, konst)
			c.VMOVUPS(acc, plane(6*i+j))
		}
		if j < 5 {
			c.ADDQ(pix, col)
		}
	}
	// V = t B, row by row: the row read back, then its six values.
	for i := range 6 {
		t := [6]reg.VecPhysical{vec(0), vec(1), vec(2), vec(3), vec(4), vec(5)}
		for j := range 6 {
			c.VMOVUPS(plane(6*i+j), t[j])
		}
		for q := range 6 {
			out := vec(6 + q)
			winoEmitRow(c, wino5BT[q][:], func(j int) operand.Op { return t[j] }, out, tmp, zero, konst)
		}
		for q := range 6 {
			c.VMOVUPS(vec(6+q), plane(6*i+q))
		}
	}
	c.ADDQ(operand.U8(bytes), src)
	c.ADDQ(operand.U8(bytes), dst)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_end")
	c.VZEROUPPER()
	c.RET()
}

// winoOut6 emits winoOut6<isa>.
func winoOut6(c *build.Context, isa string, vec func(int) reg.VecPhysical, bytes int, konst func(float32) operand.Mem) {
	y0, pix, y1, src, step, n, off := reg.RDI, reg.R8, reg.R9, reg.RSI, reg.RDX, reg.RCX, reg.R13
	name := "winoOut6" + isa
	winoFunc(c, name, "func(dst *float32, dstPix, dstRow int, src *float32, srcStep, n int)",
		"writes Winograd's F(2×2, 5×5) output transform of n channels (see winoOut6Go).",
		[]string{"dst", "dstPix", "dstRow", "src", "srcStep", "n"}, y0, pix, y1, src, step, n)
	c.ADDQ(y0, y1)
	zero, acc, tmp := vec(15), vec(14), vec(13)
	c.VXORPS(zero, zero, zero)
	c.TESTQ(n, n)
	c.JZ(operand.LabelRef(name + "_end"))
	c.Label(name + "_loop")
	// s = Aᵀ m: s[i][j] in register 6i+j, the planes as memory operands.
	for i := range 2 {
		for j := range 6 {
			winoEmitRow(c, wino5AT[i][:], func(k int) operand.Op {
				xi := 6*k + j
				if xi == 0 {
					return operand.Mem{Base: src}
				}
				c.IMUL3Q(operand.Imm(uint64(xi)), step, off)
				return operand.Mem{Base: src, Index: off, Scale: 1}
			}, vec(6*i+j), tmp, zero, konst)
		}
	}
	// Y = s A.
	for i, y := range []reg.Register{y0, y1} {
		for q := range 2 {
			winoEmitRow(c, wino5AT[q][:], func(j int) operand.Op { return vec(6*i + j) }, acc, tmp, zero, konst)
			if q == 0 {
				c.VMOVUPS(acc, operand.Mem{Base: y})
			} else {
				c.VMOVUPS(acc, operand.Mem{Base: y, Index: pix, Scale: 1})
			}
		}
	}
	c.ADDQ(operand.U8(bytes), src)
	c.ADDQ(operand.U8(bytes), y0)
	c.ADDQ(operand.U8(bytes), y1)
	c.DECQ(n)
	c.JNZ(operand.LabelRef(name + "_loop"))
	c.Label(name + "_end")
	c.VZEROUPPER()
	c.RET()
}
