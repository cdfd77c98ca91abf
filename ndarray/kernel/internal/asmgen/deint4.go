package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The stride-4 split of a row (package kernel's rowconv_flat.go: the flat
// copy of AlexNet's first layer's input, whose stride 4 puts input column
// x in phase x mod 4): d_k[t] = src[4t+k] for k < 4, the values copied
// unchanged, a block of quads at a time with shuffles in the registers
// instead of one store per float.
//
//	deint4AVX512  16 quads (four vectors) a block: two-source
//	              permutes gather phases 0 and 1, and 2 and 3, of eight
//	              quads into one vector each, and 128-bit lane shuffles
//	              join the halves of the two groups of eight; then a
//	              block of 8 as deint4AVX2's
//	deint4AVX2    8 quads a block: a 4×4 transpose within the 128-bit
//	              lanes (unpack of floats, then of pairs), then a
//	              permute puts each phase's values back in order
//
// Both take any count of quads: the last fewer than 8 are copied a float
// at a time.

func buildDeint4(c *build.Context) {
	idx := c.StaticGlobal("deint4Index")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	// Bytes 0-63: phases 0 and 1 of eight quads (4j, then 4j+1);
	// 64-127: phases 2 and 3; 128-159: the AVX2 permute, lane order
	// 0, 4, 1, 5, 2, 6, 3, 7.
	for h := range 2 {
		for j := range 16 {
			c.AddDatum(64*h+4*j, operand.U32(4*(j%8)+j/8+2*h))
		}
	}
	for j, v := range []uint32{0, 4, 1, 5, 2, 6, 3, 7} {
		c.AddDatum(128+4*j, operand.U32(v))
	}
	deint4AVX512(c, idx)
	deint4AVX2(c, idx)
}

// deint4Func starts deint4<suffix> and loads its arguments: the four
// destinations, the source and the count of quads.
func deint4Func(c *build.Context, suffix string) (d [4]reg.Register, src, n reg.Register) {
	name := "deint4" + suffix
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(d0, d1, d2, d3, src *float32, n int)")
	c.Doc(fmt.Sprintf("%s sets dk[t] = src[4t+k] for k < 4, t < n.", name))
	d = [4]reg.Register{reg.RDI, reg.RSI, reg.RDX, reg.R8}
	for k, p := range []string{"d0", "d1", "d2", "d3"} {
		c.Load(c.Param(p), d[k])
	}
	src, n = reg.RBX, reg.RCX
	c.Load(c.Param("src"), src)
	c.Load(c.Param("n"), n)
	return d, src, n
}

// deint4Blocks emits a loop over whole blocks of quads (while n >= block)
// around body, advancing the pointers, labelled name.
func deint4Blocks(c *build.Context, name string, d [4]reg.Register, src, n reg.Register, block, bytes int, body func()) {
	c.Label(name)
	c.CMPQ(n, operand.U8(block))
	c.JL(operand.LabelRef(name + "_end"))
	body()
	for _, p := range d {
		c.ADDQ(operand.U32(bytes), p)
	}
	c.ADDQ(operand.U32(4*bytes), src)
	c.SUBQ(operand.U8(block), n)
	c.JMP(operand.LabelRef(name))
	c.Label(name + "_end")
}

// deint4Tail emits the copy of the last n quads a float at a time, and
// the return.
func deint4Tail(c *build.Context, d [4]reg.Register, src, n reg.Register) {
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("quad")
	for k, p := range d {
		c.MOVSS(operand.Mem{Base: src, Disp: 4 * k}, reg.X0)
		c.MOVSS(reg.X0, operand.Mem{Base: p})
		c.ADDQ(operand.U8(4), p)
	}
	c.ADDQ(operand.U8(16), src)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("quad"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

func deint4AVX512(c *build.Context, idx operand.Mem) {
	d, src, n := deint4Func(c, "AVX512")
	i01, i23 := reg.Z8, reg.Z9
	c.VMOVUPS(idx, i01)
	c.VMOVUPS(idx.Offset(64), i23)
	a, b, cc, dd := reg.Z0, reg.Z1, reg.Z2, reg.Z3
	deint4Blocks(c, "block16", d, src, n, 16, 64, func() {
		// a, b: phases 0 and 1, 2 and 3 of quads 0-7; cc, dd: of 8-15.
		c.VMOVUPS(operand.Mem{Base: src}, a)
		c.VMOVUPS(operand.Mem{Base: src}, b)
		c.VMOVUPS(operand.Mem{Base: src, Disp: 128}, cc)
		c.VMOVUPS(operand.Mem{Base: src, Disp: 128}, dd)
		c.VPERMT2PS(operand.Mem{Base: src, Disp: 64}, i01, a)
		c.VPERMT2PS(operand.Mem{Base: src, Disp: 64}, i23, b)
		c.VPERMT2PS(operand.Mem{Base: src, Disp: 192}, i01, cc)
		c.VPERMT2PS(operand.Mem{Base: src, Disp: 192}, i23, dd)
		// Low halves (0x44) and high halves (0xee) of the pairs.
		c.VSHUFF32X4(operand.U8(0x44), cc, a, reg.Z4)
		c.VSHUFF32X4(operand.U8(0xee), cc, a, reg.Z5)
		c.VSHUFF32X4(operand.U8(0x44), dd, b, reg.Z6)
		c.VSHUFF32X4(operand.U8(0xee), dd, b, reg.Z7)
		for k := range 4 {
			c.VMOVUPS([]reg.VecPhysical{reg.Z4, reg.Z5, reg.Z6, reg.Z7}[k], operand.Mem{Base: d[k]})
		}
	})
	c.VMOVUPS(idx.Offset(128), reg.Y15)
	deint4Blocks(c, "block8", d, src, n, 8, 32, func() { deint4Block8(c, d, src, reg.Y15) })
	deint4Tail(c, d, src, n)
}

// deint4Block8 emits the split of 8 quads at src into the four
// destinations, perm the permute that puts a phase's values in order.
func deint4Block8(c *build.Context, d [4]reg.Register, src reg.Register, perm reg.VecPhysical) {
	// Each 128-bit lane of y0..y3 a quad: quads 0, 2, 4, 6 in the
	// low lanes, 1, 3, 5, 7 in the high ones.
	for i := range 4 {
		c.VMOVUPS(operand.Mem{Base: src, Disp: 32 * i}, ymm(i))
	}
	c.VUNPCKLPS(reg.Y1, reg.Y0, reg.Y4) // a0 b0 a1 b1
	c.VUNPCKHPS(reg.Y1, reg.Y0, reg.Y5) // a2 b2 a3 b3
	c.VUNPCKLPS(reg.Y3, reg.Y2, reg.Y6) // c0 d0 c1 d1
	c.VUNPCKHPS(reg.Y3, reg.Y2, reg.Y7) // c2 d2 c3 d3
	c.VUNPCKLPD(reg.Y6, reg.Y4, reg.Y0) // phase 0: quads 0 2 4 6 | 1 3 5 7
	c.VUNPCKHPD(reg.Y6, reg.Y4, reg.Y1) // phase 1
	c.VUNPCKLPD(reg.Y7, reg.Y5, reg.Y2) // phase 2
	c.VUNPCKHPD(reg.Y7, reg.Y5, reg.Y3) // phase 3
	for k := range 4 {
		c.VPERMPS(ymm(k), perm, ymm(4+k))
		c.VMOVUPS(ymm(4+k), operand.Mem{Base: d[k]})
	}
}

func deint4AVX2(c *build.Context, idx operand.Mem) {
	d, src, n := deint4Func(c, "AVX2")
	perm := reg.Y15
	c.VMOVUPS(idx.Offset(128), perm)
	deint4Blocks(c, "block8", d, src, n, 8, 32, func() { deint4Block8(c, d, src, perm) })
	deint4Tail(c, d, src, n)
}
