package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The direct-convolution kernels work on blocks of images interleaved in
// the lanes of a vector (see package kernel's directconv.go): 16 images
// with AVX-512, 8 with AVX2.
//
//	directTile*xMR   MR output channels of npix pixels, two at a time: per
//	                 weight, one broadcast and two multiply-adds per row,
//	                 the input vectors read through a table of offsets;
//	                 the weights come in krows runs of k, kskip apart
//	directGrad*xMR   the weight gradient of MR output channels and GNR
//	                 weights, summed over the pixels of a block in lanes
//	interleave*      one image row of n images into pixel vectors
//	deinterleave*    pixel vectors back into image rows, plus a bias
//
// The lane sums (laneSums*, dst[i] += the sum of the lanes of vector i)
// are in lanesums.go.

// directISA is a vector width for the direct-convolution kernels.
type directISA struct {
	suffix   string
	bytes    int // vector bytes
	regs     int // vector registers
	vec      func(i int) reg.VecPhysical
	mr       int // largest forward tile
	gmr, gnr int // weight-gradient tile
}

var (
	direct512 = directISA{suffix: "AVX512", bytes: 64, regs: 32, vec: zmm, mr: 14, gmr: 5, gnr: 5}
	direct256 = directISA{suffix: "AVX2", bytes: 32, regs: 16, vec: ymm, mr: 6, gmr: 3, gnr: 4}
)

func buildDirect(c *build.Context) {
	tab := directConsts(c)
	for _, isa := range []directISA{direct512, direct256} {
		for mr := 1; mr <= isa.mr; mr++ {
			directTile(c, isa, mr)
		}
		for mr := 1; mr <= isa.gmr; mr++ {
			directGrad(c, isa, mr)
		}
	}
	interleave512(c)
	deinterleave512(c)
	interleave256(c, tab)
	deinterleave256(c, tab)
}

// directConsts emits the int32 lane numbers 0..7 for AVX2 lane masks.
func directConsts(c *build.Context) operand.Mem {
	m := c.StaticGlobal("directConsts")
	c.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		c.AddDatum(4*l, operand.U32(l))
	}
	return m
}

// zero clears a vector register.
func zero(c *build.Context, isa directISA, r reg.VecPhysical) {
	if isa.bytes == 64 {
		c.VPXORD(r, r, r)
	} else {
		c.VXORPS(r, r, r)
	}
}

// directTile emits directTile{AVX512,AVX2}xMR:
//
//	for each of npix pixels p (byte offsets p·xstep in x, p·ystep in y),
//	for i < mr: y[p][i] (+)= Σ_kk a[kk·mr+i] · vector at x + p·xstep + off[kk]
//
// where kk runs over krows runs of k weights, the runs k+kskip apart (a
// rectangle of kernel positions, say). Two pixels at a time keep 2·mr
// accumulators in registers; a last odd pixel takes mr.
func directTile(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("directTile%sx%d", isa.suffix, mr)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(k, krows, kskip int, a, x *float32, off *int32, xstep int, y *float32, ystep, npix int, loadY bool)")
	c.Doc(fmt.Sprintf("%s computes %d output channels of npix pixels of a direct convolution (see directKernels.tile).", name, mr))
	k, a, x, x2, off := reg.RCX, reg.RAX, reg.RBX, reg.R8, reg.RDX
	y, ystep, npix, t, kc, xstep, a0, seg := reg.RDI, reg.RSI, reg.R9, reg.R10, reg.R11, reg.R12, reg.R13, reg.R14
	c.Load(c.Param("k"), k)
	c.Load(c.Param("a"), a0)
	c.Load(c.Param("x"), x)
	c.Load(c.Param("xstep"), xstep)
	c.Load(c.Param("y"), y)
	c.Load(c.Param("ystep"), ystep)
	c.Load(c.Param("npix"), npix)
	acc := func(i, h int) reg.VecPhysical { return isa.vec(2*i + h) }
	b := []reg.VecPhysical{isa.vec(isa.regs - 4), isa.vec(isa.regs - 3)}
	bc := []reg.VecPhysical{isa.vec(isa.regs - 2), isa.vec(isa.regs - 1)}
	loadY := paramAddr(c, "loadY")

	// body emits the code for pixels pixels (1 or 2) with label tag.
	body := func(pixels int, tag string) {
		for i := 0; i < mr; i++ {
			for h := 0; h < pixels; h++ {
				zero(c, isa, acc(i, h))
			}
		}
		c.MOVQ(a0, a)
		c.Load(c.Param("off"), off)
		c.Load(c.Param("krows"), seg)
		c.Label("seg" + tag)
		c.MOVQ(k, kc)
		if pixels == 2 {
			c.LEAQ(operand.Mem{Base: x, Index: xstep, Scale: 1}, x2)
		}
		bases := []reg.Register{x, x2}
		step := func(u int) {
			c.MOVLQSX(operand.Mem{Base: off, Disp: 4 * u}, t)
			for h := 0; h < pixels; h++ {
				c.VMOVUPS(operand.Mem{Base: bases[h], Index: t, Scale: 1}, b[h])
			}
			for i := 0; i < mr; i++ {
				r := bc[i%2]
				c.VBROADCASTSS(operand.Mem{Base: a, Disp: 4 * (u*mr + i)}, r)
				for h := 0; h < pixels; h++ {
					c.VFMADD231PS(r, b[h], acc(i, h))
				}
			}
		}
		const unroll = 4
		c.CMPQ(kc, operand.U8(unroll))
		c.JL(operand.LabelRef("k1" + tag))
		c.Label("k4" + tag)
		for u := 0; u < unroll; u++ {
			step(u)
		}
		c.ADDQ(operand.U8(4*unroll), off)
		c.ADDQ(operand.U32(4*unroll*mr), a)
		c.SUBQ(operand.U8(unroll), kc)
		c.CMPQ(kc, operand.U8(unroll))
		c.JGE(operand.LabelRef("k4" + tag))
		c.Label("k1" + tag)
		c.TESTQ(kc, kc)
		c.JZ(operand.LabelRef("segEnd" + tag))
		step(0)
		c.ADDQ(operand.U8(4), off)
		c.ADDQ(operand.U32(4*mr), a)
		c.DECQ(kc)
		c.JMP(operand.LabelRef("k1" + tag))
		// The next run: skip kskip weights.
		c.Label("segEnd" + tag)
		c.DECQ(seg)
		c.JLE(operand.LabelRef("store" + tag))
		c.Load(c.Param("kskip"), t)
		c.LEAQ(operand.Mem{Base: off, Index: t, Scale: 4}, off)
		c.IMUL3Q(operand.U32(4*mr), t, t)
		c.ADDQ(t, a)
		c.JMP(operand.LabelRef("seg" + tag))

		c.Label("store" + tag)
		mem := func(i, h int) operand.Mem {
			if h == 0 {
				return operand.Mem{Base: y, Disp: i * isa.bytes}
			}
			return operand.Mem{Base: y, Index: ystep, Scale: 1, Disp: i * isa.bytes}
		}
		c.CMPB(loadY, operand.U8(0))
		c.JEQ(operand.LabelRef("plain" + tag))
		for i := 0; i < mr; i++ {
			for h := 0; h < pixels; h++ {
				c.VADDPS(mem(i, h), acc(i, h), acc(i, h))
				c.VMOVUPS(acc(i, h), mem(i, h))
			}
		}
		c.JMP(operand.LabelRef("next" + tag))
		c.Label("plain" + tag)
		for i := 0; i < mr; i++ {
			for h := 0; h < pixels; h++ {
				c.VMOVUPS(acc(i, h), mem(i, h))
			}
		}
		c.Label("next" + tag)
	}

	c.Label("pairs")
	c.CMPQ(npix, operand.U8(2))
	c.JL(operand.LabelRef("single"))
	body(2, "p")
	c.LEAQ(operand.Mem{Base: x, Index: xstep, Scale: 2}, x)
	c.LEAQ(operand.Mem{Base: y, Index: ystep, Scale: 2}, y)
	c.SUBQ(operand.U8(2), npix)
	c.JMP(operand.LabelRef("pairs"))
	c.Label("single")
	c.TESTQ(npix, npix)
	c.JZ(operand.LabelRef("done"))
	body(1, "s")
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// directGrad emits directGrad{AVX512,AVX2}xMR:
//
//	acc[i][j] (+)= Σ over oh×ow pixels of dy[pixel][i] · x[pixel + offs[j]]
//
// for i < mr and j < gnr, a vector each; the pixels of dy are dyStep
// bytes apart in a row and the rows dyRow bytes apart (xStep and xRow
// for x); acc rows (i) are accRow bytes apart, its vectors (j) adjacent.
func directGrad(c *build.Context, isa directISA, mr int) {
	name := fmt.Sprintf("directGrad%sx%d", isa.suffix, mr)
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dy *float32, dyRow, dyStep int, x *float32, offs *int32, xRow, xStep, oh, ow int, acc *float32, accRow int, load bool)")
	c.Doc(fmt.Sprintf("%s sums the weight gradient of %d output channels and %d weights over a block (see directKernels.grad).", name, mr, isa.gnr))
	nr := isa.gnr
	dy, x, ox, oy, xStep, dyStep, t := reg.RSI, reg.RBX, reg.RCX, reg.RDX, reg.R13, reg.RDI, reg.RAX
	offReg := []reg.Register{reg.R8, reg.R9, reg.R10, reg.R11, reg.R12}[:nr]
	acc := func(i, j int) reg.VecPhysical { return isa.vec(i*nr + j) }
	dyv := func(i int) reg.VecPhysical { return isa.vec(isa.gmr*nr + i) }
	xv := isa.vec(isa.gmr*nr + isa.gmr)

	c.Load(c.Param("offs"), t)
	for j, r := range offReg {
		c.MOVLQSX(operand.Mem{Base: t, Disp: 4 * j}, r)
	}
	c.Load(c.Param("acc"), t)
	c.CMPB(paramAddr(c, "load"), operand.U8(0))
	c.JEQ(operand.LabelRef("zero"))
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			c.VMOVUPS(operand.Mem{Base: t, Disp: j * isa.bytes}, acc(i, j))
		}
		if i < mr-1 {
			c.ADDQ(paramAddr(c, "accRow"), t)
		}
	}
	c.JMP(operand.LabelRef("start"))
	c.Label("zero")
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			zero(c, isa, acc(i, j))
		}
	}
	c.Label("start")
	c.Load(c.Param("dy"), dy)
	c.Load(c.Param("x"), x)
	c.Load(c.Param("xStep"), xStep)
	c.Load(c.Param("dyStep"), dyStep)
	c.Load(c.Param("oh"), oy)
	c.TESTQ(oy, oy)
	c.JLE(operand.LabelRef("store"))
	c.CMPQ(paramAddr(c, "ow"), operand.U8(0))
	c.JLE(operand.LabelRef("store"))
	c.Label("row")
	c.Load(c.Param("ow"), ox)
	c.Label("pixel")
	for i := 0; i < mr; i++ {
		c.VMOVUPS(operand.Mem{Base: dy, Disp: i * isa.bytes}, dyv(i))
	}
	for j, r := range offReg {
		c.VMOVUPS(operand.Mem{Base: x, Index: r, Scale: 1}, xv)
		for i := 0; i < mr; i++ {
			c.VFMADD231PS(xv, dyv(i), acc(i, j))
		}
	}
	c.ADDQ(xStep, x)
	c.ADDQ(dyStep, dy)
	c.DECQ(ox)
	c.JNZ(operand.LabelRef("pixel"))
	// Next row: x += xRow − ow·xStep, dy += dyRow − ow·dyStep.
	c.Load(c.Param("ow"), t)
	c.IMULQ(xStep, t)
	c.NEGQ(t)
	c.ADDQ(paramAddr(c, "xRow"), t)
	c.ADDQ(t, x)
	c.Load(c.Param("ow"), t)
	c.IMULQ(dyStep, t)
	c.NEGQ(t)
	c.ADDQ(paramAddr(c, "dyRow"), t)
	c.ADDQ(t, dy)
	c.DECQ(oy)
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

// loadRows emits loads of rows 0..count-1 into vectors 0..count-1, the
// row pointer starting at p and advancing by stride; rows from the count
// in register n on are zeroed instead. load emits one row's load.
func loadRows(c *build.Context, isa directISA, count int, n, p, stride reg.Register, tag string, load func(r int, m operand.Mem)) {
	for r := 0; r < count; r++ {
		c.CMPQ(n, operand.U8(r))
		c.JLE(operand.LabelRef(fmt.Sprintf("zero%s%d", tag, r)))
		load(r, operand.Mem{Base: p})
		if r < count-1 {
			c.ADDQ(stride, p)
		}
	}
	c.JMP(operand.LabelRef("loaded" + tag))
	for r := 0; r < count; r++ {
		c.Label(fmt.Sprintf("zero%s%d", tag, r))
		zero(c, isa, isa.vec(r))
	}
	c.Label("loaded" + tag)
}

// interleavePrefetch is how far ahead (bytes) of each image row's load
// the interleaves prefetch it, and the deinterleaves each row they store:
// AlexNet's blocks of 16 images' inputs and outputs (1.4–4.2 MB) come
// from and go to memory, 16 streams of a row's few lines each per call,
// which the hardware prefetchers left to wait on each line.
const interleavePrefetch = 512

// interleave512 emits interleaveAVX512: 16 pixels at a time, the rows of
// n images are loaded under the opmask of the block's pixels, transposed,
// and each pixel's vector (16 images) stored.
func interleave512(c *build.Context) {
	interleaveVectors512(c, "interleaveAVX512",
		"interleaveAVX512 writes w pixels of n images into vectors of 16 lanes (see directKernels.interleave).",
		false)
}

// interleaveVectors512 emits an interleave of 16 pixels at a time under
// the given name: stream stores each pixel's vector by VMOVNTPS instead
// of VMOVUPS (dst and dstStep multiples of 64 bytes, no fence).
func interleaveVectors512(c *build.Context, name, doc string, stream bool) {
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStep int, src *float32, srcStride, w, n int)")
	c.Doc(doc)
	dst, dstStep, src, srcStride, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStep"), dstStep)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStride"), srcStride)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(16), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	c.MOVL(operand.U32(0xffff), reg.R12L)
	c.BZHIL(reg.R10L, reg.R12L, reg.R12L)
	c.KMOVW(reg.R12L, reg.K1)
	c.MOVQ(src, p)
	loadRows(c, direct512, 16, n, p, srcStride, "", func(r int, m operand.Mem) {
		c.VMOVUPS_Z(m, reg.K1, zmm(r))
		c.PREFETCHT0(operand.Mem{Base: m.Base, Disp: interleavePrefetch})
	})
	transpose16(c)
	for j := 0; j < 16; j++ {
		if j > 0 {
			c.CMPQ(width, operand.U8(j))
			c.JLE(operand.LabelRef("stored"))
		}
		if stream {
			c.VMOVNTPS(zmm(j), operand.Mem{Base: dst})
		} else {
			c.VMOVUPS(zmm(j), operand.Mem{Base: dst})
		}
		c.ADDQ(dstStep, dst)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(64), src)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// deinterleave512 emits deinterleaveAVX512: 16 pixels at a time, the
// pixel vectors are loaded, transposed into image rows, the bias added,
// and the rows of n images stored under the opmask of the block's pixels.
func deinterleave512(c *build.Context) {
	c.Function("deinterleaveAVX512")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32)")
	c.Doc("deinterleaveAVX512 writes w pixel vectors of 16 lanes back into the rows of n images, adding bias (see directKernels.deinterleave).")
	dst, dstStride, src, srcStep, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStride"), dstStride)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStep"), srcStep)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	bias := paramAddr(c, "bias")
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(16), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	c.MOVL(operand.U32(0xffff), reg.R12L)
	c.BZHIL(reg.R10L, reg.R12L, reg.R12L)
	c.KMOVW(reg.R12L, reg.K1)
	loadRows(c, direct512, 16, width, src, srcStep, "", func(r int, m operand.Mem) {
		c.VMOVUPS(m, zmm(r))
	})
	c.ADDQ(srcStep, src) // past the block's last pixel
	transpose16(c)
	c.MOVQ(dst, p)
	for r := 0; r < 16; r++ {
		if r > 0 {
			c.CMPQ(n, operand.U8(r))
			c.JLE(operand.LabelRef("stored"))
		}
		c.VADDPS_BCST(bias, zmm(r), zmm(r))
		c.VMOVUPS(zmm(r), reg.K1, operand.Mem{Base: p})
		c.PREFETCHT0(operand.Mem{Base: p, Disp: interleavePrefetch})
		c.ADDQ(dstStride, p)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(64), dst)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// interleave256 emits interleaveAVX2: interleave512 with 8 lanes; the
// image rows are read under a VMASKMOVPS lane mask.
func interleave256(c *build.Context, tab operand.Mem) {
	c.Function("interleaveAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStep int, src *float32, srcStride, w, n int)")
	c.Doc("interleaveAVX2 writes w pixels of n images into vectors of 8 lanes (see directKernels.interleave).")
	dst, dstStep, src, srcStride, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStep"), dstStep)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStride"), srcStride)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(8), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	lanesBelowDirect(c, tab, width, reg.Y8)
	c.MOVQ(src, p)
	loadRows(c, direct256, 8, n, p, srcStride, "", func(r int, m operand.Mem) {
		c.VMASKMOVPS(m, reg.Y8, ymm(r))
		c.PREFETCHT0(operand.Mem{Base: m.Base, Disp: interleavePrefetch})
	})
	transpose8(c)
	for j := 0; j < 8; j++ {
		if j > 0 {
			c.CMPQ(width, operand.U8(j))
			c.JLE(operand.LabelRef("stored"))
		}
		c.VMOVUPS(ymm(8+j), operand.Mem{Base: dst})
		c.ADDQ(dstStep, dst)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(32), src)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// deinterleave256 emits deinterleaveAVX2 (see deinterleave512): image
// rows are stored under a VMASKMOVPS lane mask.
func deinterleave256(c *build.Context, tab operand.Mem) {
	c.Function("deinterleaveAVX2")
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, dstStride int, src *float32, srcStep, w, n int, bias float32)")
	c.Doc("deinterleaveAVX2 writes w pixel vectors of 8 lanes back into the rows of n images, adding bias (see directKernels.deinterleave).")
	dst, dstStride, src, srcStep, w, n := reg.RDI, reg.R11, reg.RSI, reg.R8, reg.RCX, reg.RDX
	p, width := reg.R9, reg.R10
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("dstStride"), dstStride)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("srcStep"), srcStep)
	c.Load(c.Param("w"), w)
	c.Load(c.Param("n"), n)
	c.TESTQ(w, w)
	c.JLE(operand.LabelRef("done"))
	c.Label("block")
	c.MOVQ(operand.U32(8), width)
	c.CMPQ(w, width)
	c.CMOVQLT(w, width)
	loadRows(c, direct256, 8, width, src, srcStep, "", func(r int, m operand.Mem) {
		c.VMOVUPS(m, ymm(r))
	})
	c.ADDQ(srcStep, src)
	transpose8(c)
	lanesBelowDirect(c, tab, width, reg.Y0)
	c.VBROADCASTSS(paramAddr(c, "bias"), reg.Y1)
	c.MOVQ(dst, p)
	for r := 0; r < 8; r++ {
		if r > 0 {
			c.CMPQ(n, operand.U8(r))
			c.JLE(operand.LabelRef("stored"))
		}
		c.VADDPS(reg.Y1, ymm(8+r), ymm(8+r))
		c.VMASKMOVPS(ymm(8+r), reg.Y0, operand.Mem{Base: p})
		c.PREFETCHT0(operand.Mem{Base: p, Disp: interleavePrefetch})
		c.ADDQ(dstStride, p)
	}
	c.Label("stored")
	c.ADDQ(operand.U8(32), dst)
	c.SUBQ(width, w)
	c.JG(operand.LabelRef("block"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// lanesBelowDirect sets dst to a lane mask of the lanes l < n (n in a
// 64-bit register, 0..8) from the lane numbers at tab.
func lanesBelowDirect(c *build.Context, tab operand.Mem, n reg.Register, dst reg.VecPhysical) {
	x := dst.AsX()
	c.VMOVQ(n, x)
	c.VPBROADCASTD(x, dst)
	c.VPCMPGTD(tab, dst, dst)
}
