package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The forward pass on flat rows (package kernel's rowconv_flat.go) with
// tiles of more output channels and fewer vectors of pixels than the row
// kernels' (convRows: 6 × 4 vectors, AVX2 3 × 4), so that fewer loads of
// the input, which lie across cache lines at most weights' offsets, meet
// each broadcast weight:
//
//	convFlat*xMRv3  MR output channels × 3 vectors of flat pixels (MR up
//	              to 8, AVX2 4): per weight, 3 input vectors (read
//	              through the offset table), then MR broadcasts, each
//	              multiplied into the 3 vectors; one sum per output value
//	              in the weights' order, then what y holds (a sum of
//	              earlier weights) and the bias added
const convFlatVectors = 3

var (
	convFlatISA512 = directISA{suffix: "AVX512", bytes: 64, regs: 32, vec: zmm, mr: 8}
	convFlatISA256 = directISA{suffix: "AVX2", bytes: 32, regs: 16, vec: ymm, mr: 4}
)

func buildConvFlat(c *build.Context) {
	for _, isa := range []directISA{convFlatISA512, convFlatISA256} {
		for mr := 1; mr <= isa.mr; mr++ {
			convFlat(c, isa, mr, convFlatVectors)
		}
	}
}

// convFlat emits convFlat{AVX512,AVX2}xMRvNV:
//
//	y[i·ych + v·V] = Σ_kk a[kk·mr+i] · x[off[kk] + v·V] (+ y) (+ bias[i])
//
// for i < mr, v < nv, byte offsets and strides, the sum over kk < k in
// order from zero, y's value added if load, then bias (unless nil).
func convFlat(c *build.Context, isa directISA, mr, nv int) {
	name := fmt.Sprintf("convFlat%sx%dv%d", isa.suffix, mr, nv)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool)")
	c.Doc(fmt.Sprintf("%s computes %d output channels of %d vectors of flat pixels of a convolution of one image.", name, mr, nv))
	x, y := reg.RBX, reg.RDI
	ap, op, kc, t := reg.RAX, reg.RDX, reg.RCX, reg.R10
	p, s := reg.R11, reg.R13
	acc := func(i, v int) reg.VecPhysical { return isa.vec(nv*i + v) }
	xv := func(v int) reg.VecPhysical { return isa.vec(mr*nv + v) }
	w := isa.vec(mr*nv + nv)
	V := isa.bytes
	c.Load(c.Param("x"), x)
	c.Load(c.Param("y"), y)
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			zero(c, isa, acc(i, v))
		}
	}
	c.Load(c.Param("a"), ap)
	c.Load(c.Param("off"), op)
	c.Load(c.Param("k"), kc)
	c.Label("k")
	c.MOVLQSX(operand.Mem{Base: op}, t)
	for v := 0; v < nv; v++ {
		c.VMOVUPS(operand.Mem{Base: x, Index: t, Scale: 1, Disp: v * V}, xv(v))
	}
	for i := 0; i < mr; i++ {
		c.VBROADCASTSS(operand.Mem{Base: ap, Disp: 4 * i}, w)
		for v := 0; v < nv; v++ {
			c.VFMADD231PS(w, xv(v), acc(i, v))
		}
	}
	c.ADDQ(operand.U8(4), op)
	c.ADDQ(operand.U8(4*mr), ap)
	c.DECQ(kc)
	c.JNZ(operand.LabelRef("k"))

	c.Load(c.Param("ych"), s)
	c.CMPB(paramAddr(c, "load"), operand.U8(0))
	c.JEQ(operand.LabelRef("bias"))
	c.MOVQ(y, p)
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			c.VADDPS(operand.Mem{Base: p, Disp: v * V}, acc(i, v), acc(i, v))
		}
		if i+1 < mr {
			c.ADDQ(s, p)
		}
	}
	c.Label("bias")
	c.Load(c.Param("bias"), t)
	c.TESTQ(t, t)
	c.JZ(operand.LabelRef("plain"))
	for i := 0; i < mr; i++ {
		c.VBROADCASTSS(operand.Mem{Base: t, Disp: 4 * i}, w)
		for v := 0; v < nv; v++ {
			c.VADDPS(w, acc(i, v), acc(i, v))
		}
	}
	c.Label("plain")
	c.MOVQ(y, p)
	for i := 0; i < mr; i++ {
		for v := 0; v < nv; v++ {
			c.VMOVUPS(acc(i, v), operand.Mem{Base: p, Disp: v * V})
		}
		if i+1 < mr {
			c.ADDQ(s, p)
		}
	}
	c.VZEROUPPER()
	c.RET()
}
