package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The row-convolution kernels (package kernel's rowconv.go) convolve one
// image in its own layout, the output pixels of a row in the lanes:
//
//	convRows*xMR  MR output channels of two output rows, a pair of vectors
//	              of each row at a time (four vectors): per weight, MR
//	              broadcasts and 4·MR multiply-adds on input vectors read
//	              through a table of offsets, one sum per output value in
//	              the weights' order; then what y holds (a sum of earlier
//	              weights) and the bias are added
//	convRowsGrad*xMR the weight gradient of MR output channels and GNR
//	              weights: per vector of output pixels, MR gradient
//	              vectors and GNR input vectors, MR·GNR multiply-adds
//	              into sums kept in the lanes
var (
	rowConvISA512 = directISA{suffix: "AVX512", bytes: 64, regs: 32, vec: zmm, mr: 6, gmr: 6, gnr: 4}
	rowConvISA256 = directISA{suffix: "AVX2", bytes: 32, regs: 16, vec: ymm, mr: 3, gmr: 3, gnr: 4}
)

func buildConvRows(c *build.Context) {
	for _, isa := range []directISA{rowConvISA512, rowConvISA256} {
		for mr := 1; mr <= isa.mr; mr++ {
			convRows(c, isa, mr)
		}
		for mr := 1; mr <= isa.gmr; mr++ {
			convRowsGrad(c, isa, mr)
		}
	}
}

// convRowsGrad emits convRowsGrad{AVX512,AVX2}xMR:
//
//	acc[i][j] += Σ over rows r < nrows, vectors v < nvec of
//	    dy[i·dych + r·dyrow + v·V] · x[offs[j] + r·xrow + v·V]
//
// for i < mr, j < gnr, a vector each (V bytes), byte strides and offsets;
// acc rows (i) accRow bytes apart, its vectors (j) adjacent. The sums run
// over the rows and vectors in order; dyskip and xskip are dyrow and xrow
// less nvec·V.
func convRowsGrad(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("convRowsGrad%sx%d", isa.suffix, mr)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int)")
	c.Doc(fmt.Sprintf("%s sums the weight gradient of %d output channels and %d weights over rows of output pixels (see rowKernels.grad).", name, mr, isa.gnr))
	nr := isa.gnr
	dy, dy3, x, dych, v, r, t := reg.RSI, reg.R13, reg.RBX, reg.RDI, reg.RCX, reg.RDX, reg.RAX
	offReg := []reg.Register{reg.R8, reg.R9, reg.R10, reg.R11, reg.R12, reg.R14}[:nr]
	acc := func(i, j int) reg.VecPhysical { return isa.vec(i*nr + j) }
	dyv := func(i int) reg.VecPhysical { return isa.vec(mr*nr + i) }
	xv := isa.vec(mr*nr + mr)

	c.Load(c.Param("offs"), t)
	for j, o := range offReg {
		c.MOVLQSX(operand.Mem{Base: t, Disp: 4 * j}, o)
	}
	c.Load(c.Param("acc"), t)
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			c.VMOVUPS(operand.Mem{Base: t, Disp: j * isa.bytes}, acc(i, j))
		}
		if i < mr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.Load(c.Param("dy"), dy)
	c.Load(c.Param("x"), x)
	c.Load(c.Param("dych"), dych)
	if mr > 3 {
		// dy3 points at the fourth row: rows 3 to 5 are read from it.
		c.LEAQ(operand.Mem{Base: dych, Index: dych, Scale: 2}, dy3)
		c.ADDQ(dy, dy3)
	}
	dyMem := func(i int) operand.Mem {
		base := dy
		if i >= 3 {
			base, i = dy3, i-3
		}
		switch i {
		case 0:
			return operand.Mem{Base: base}
		case 1:
			return operand.Mem{Base: base, Index: dych, Scale: 1}
		case 2:
			return operand.Mem{Base: base, Index: dych, Scale: 2}
		}
		panic("asmgen: convRowsGrad: more than six rows of the gradient")
	}
	c.Load(c.Param("nrows"), r)
	c.TESTQ(r, r)
	c.JLE(operand.LabelRef("store"))
	c.CMPQ(paramAddr(c, "nvec"), operand.U8(0))
	c.JLE(operand.LabelRef("store"))
	c.Label("row")
	c.Load(c.Param("nvec"), v)
	c.Label("vec")
	for i := 0; i < mr; i++ {
		c.VMOVUPS(dyMem(i), dyv(i))
	}
	for j, o := range offReg {
		c.VMOVUPS(operand.Mem{Base: x, Index: o, Scale: 1}, xv)
		for i := 0; i < mr; i++ {
			c.VFMADD231PS(xv, dyv(i), acc(i, j))
		}
	}
	c.ADDQ(operand.U32(isa.bytes), x)
	c.ADDQ(operand.U32(isa.bytes), dy)
	if mr > 3 {
		c.ADDQ(operand.U32(isa.bytes), dy3)
	}
	c.DECQ(v)
	c.JNZ(operand.LabelRef("vec"))
	c.ADDQ(paramAddr(c, "xskip"), x)
	c.ADDQ(paramAddr(c, "dyskip"), dy)
	if mr > 3 {
		c.ADDQ(paramAddr(c, "dyskip"), dy3)
	}
	c.DECQ(r)
	c.JNZ(operand.LabelRef("row"))

	c.Label("store")
	c.Load(c.Param("acc"), t)
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			c.VMOVUPS(acc(i, j), operand.Mem{Base: t, Disp: j * isa.bytes})
		}
		if i < mr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.VZEROUPPER()
	c.RET()
}

// convRows emits convRows{AVX512,AVX2}xMR:
//
//	for each of npair pairs of vectors g along the rows, for i < mr, r < 2,
//	v < 2: y[i·ych + r·yrow + (2g+v)·V] =
//	    Σ_kk a[kk·mr+i] · x[off[kk] + r·xrow + (2g+v)·V] (+ y) (+ bias[i])
//
// with byte offsets and strides, V the vector's bytes; the sum runs over
// kk in order from zero, then y's value is added if load, then bias if
// not nil.
func convRows(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("convRows%sx%d", isa.suffix, mr)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool)")
	c.Doc(fmt.Sprintf("%s computes %d output channels of two rows of a convolution of one image (see rowKernels.conv).", name, mr))
	x, x2, y, npair := reg.RBX, reg.R8, reg.RDI, reg.R9
	ap, op, kc, t := reg.RAX, reg.RDX, reg.RCX, reg.R10
	p0, p1, s := reg.R11, reg.R12, reg.R13
	c.Load(c.Param("x"), x)
	c.Load(c.Param("xrow"), x2)
	c.ADDQ(x, x2)
	c.Load(c.Param("y"), y)
	c.Load(c.Param("npair"), npair)
	acc := func(i, j int) reg.VecPhysical { return isa.vec(4*i + j) }
	w := func(i int) reg.VecPhysical { return isa.vec(4*mr + i) }
	xv := isa.vec(5 * mr)
	V := isa.bytes

	c.Label("pair")
	for i := 0; i < mr; i++ {
		for j := 0; j < 4; j++ {
			zero(c, isa, acc(i, j))
		}
	}
	c.Load(c.Param("a"), ap)
	c.Load(c.Param("off"), op)
	c.Load(c.Param("k"), kc)
	c.Label("k")
	c.MOVLQSX(operand.Mem{Base: op}, t)
	for i := 0; i < mr; i++ {
		c.VBROADCASTSS(operand.Mem{Base: ap, Disp: 4 * i}, w(i))
	}
	bases := []reg.Register{x, x2}
	for j := 0; j < 4; j++ {
		c.VMOVUPS(operand.Mem{Base: bases[j/2], Index: t, Scale: 1, Disp: (j % 2) * V}, xv)
		for i := 0; i < mr; i++ {
			c.VFMADD231PS(w(i), xv, acc(i, j))
		}
	}
	c.ADDQ(operand.U8(4), op)
	c.ADDQ(operand.U8(4*mr), ap)
	c.DECQ(kc)
	c.JNZ(operand.LabelRef("k"))

	// Store, adding the bias.
	c.MOVQ(y, p0)
	c.Load(c.Param("yrow"), p1)
	c.ADDQ(y, p1)
	c.Load(c.Param("ych"), s)
	c.CMPB(paramAddr(c, "load"), operand.U8(0))
	c.JEQ(operand.LabelRef("bias"))
	for i := 0; i < mr; i++ {
		for j := 0; j < 4; j++ {
			base := []reg.Register{p0, p1}[j/2]
			c.VADDPS(operand.Mem{Base: base, Disp: (j % 2) * V}, acc(i, j), acc(i, j))
		}
		if i+1 < mr {
			c.ADDQ(s, p0)
			c.ADDQ(s, p1)
		}
	}
	c.MOVQ(y, p0)
	c.Load(c.Param("yrow"), p1)
	c.ADDQ(y, p1)
	c.Label("bias")
	c.Load(c.Param("bias"), t)
	c.TESTQ(t, t)
	c.JZ(operand.LabelRef("plain"))
	for i := 0; i < mr; i++ {
		c.VBROADCASTSS(operand.Mem{Base: t, Disp: 4 * i}, w(i))
		for j := 0; j < 4; j++ {
			c.VADDPS(w(i), acc(i, j), acc(i, j))
		}
	}
	c.Label("plain")
	for i := 0; i < mr; i++ {
		for j := 0; j < 4; j++ {
			base := []reg.Register{p0, p1}[j/2]
			c.VMOVUPS(acc(i, j), operand.Mem{Base: base, Disp: (j % 2) * V})
		}
		if i+1 < mr {
			c.ADDQ(s, p0)
			c.ADDQ(s, p1)
		}
	}
	c.ADDQ(operand.U32(2*V), x)
	c.ADDQ(operand.U32(2*V), x2)
	c.ADDQ(operand.U32(2*V), y)
	c.DECQ(npair)
	c.JNZ(operand.LabelRef("pair"))
	c.VZEROUPPER()
	c.RET()
}
