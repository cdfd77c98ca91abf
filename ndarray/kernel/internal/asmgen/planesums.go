package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// buildPlaneSums emits the plane sums of interleaved images (see package
// kernel's directKernels.planeSums):
//
//	planeSums{AVX512,AVX2}    each lane's sum over n vectors, the
//	                          additions those of sum{AVX512,AVX2}
//	                          (vecReduce) over that lane's n floats
//	planeSumsAt{AVX512,AVX2}  the same over n vectors at offsets from a
//	                          table
//	planeSumsAdd{AVX512,AVX2} adds n vectors, step bytes apart, to n
//	                          vectors that follow each other: the
//	                          buckets of those additions, filled band by
//	                          band of a plane
func buildPlaneSums(c *build.Context) {
	for _, isa := range []directISA{direct512, direct256} {
		planeSums(c, isa, false)
		planeSums(c, isa, true)
		planeSumsAdd(c, isa)
	}
}

// planeSumsAdd emits planeSumsAdd{AVX512,AVX2}: for i < n, the vector at
// dst + i·(vector bytes) += the vector at src + i·step.
func planeSumsAdd(c *build.Context, isa directISA) {
	name := "planeSumsAdd" + isa.suffix
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	c.SignatureExpr("func(dst *float32, src *float32, step int, n int)")
	c.Doc(name + " adds the n vectors at src, step bytes apart, to the n vectors that follow each other at dst.")
	dst, src, step, n := reg.RDI, reg.RSI, reg.RDX, reg.RCX
	c.Load(c.Param("dst"), dst)
	c.Load(c.Param("src"), src)
	c.Load(c.Param("step"), step)
	c.Load(c.Param("n"), n)
	v := isa.vec(0)
	c.TESTQ(n, n)
	c.JLE(operand.LabelRef("done"))
	c.Label("loop")
	c.VMOVUPS(operand.Mem{Base: dst}, v)
	c.VADDPS(operand.Mem{Base: src}, v, v)
	c.VMOVUPS(v, operand.Mem{Base: dst})
	c.ADDQ(operand.U32(isa.bytes), dst)
	c.ADDQ(step, src)
	c.DECQ(n)
	c.JNZ(operand.LabelRef("loop"))
	c.Label("done")
	c.VZEROUPPER()
	c.RET()
}

// planeSums emits planeSums{AVX512,AVX2}, or with table
// planeSumsAt{AVX512,AVX2}: dst (a vector of W lanes, W the floats of a
// vector) = for each lane l, the sum of the lane over the n vectors at
// src, step bytes apart (planeSumsAt: vector i at src + offs[i]·pix
// bytes, offs counting vectors, so that the table stays small),
// as sum{AVX512,AVX2} adds n floats: that kernel keeps four vector
// accumulators of W lanes (buckets), adds floats 4W·c + u·W + j into
// bucket u·W + j for each whole group c of 4W, then each whole vector
// left into buckets 0 to W−1, folds the accumulators (0 += 1, 2 += 3,
// 0 += 2), halves the vector down to its first lane (hreduce), and adds
// the floats left one at a time. Here a float is a vector of images, so
// every one of those additions is a vector addition, lane by lane the
// same.
//
// Bucket column j (the four buckets u·W + j) is summed in four registers
// and folded into a register of its own, for j < W; then the W columns
// are halved as hreduce does.
func planeSums(c *build.Context, isa directISA, table bool) {
	name := "planeSums" + isa.suffix
	W := isa.bytes / 4
	if table {
		name = "planeSumsAt" + isa.suffix
	}
	c.Function(name)
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
	if table {
		c.SignatureExpr("func(dst *float32, src *float32, offs *int32, pix int, n int)")
		c.Doc(fmt.Sprintf("%s sets each lane of dst (%d floats) to that lane's sum over the n vectors at src + offs[i]·pix bytes, i < n, with the additions of sum%s over n floats.", name, W, isa.suffix))
	} else {
		c.SignatureExpr("func(dst *float32, src *float32, step int, n int)")
		c.Doc(fmt.Sprintf("%s sets each lane of dst (%d floats) to that lane's sum over the n vectors at src, step bytes apart, with the additions of sum%s over n floats.", name, W, isa.suffix))
	}
	src, step, n, p, end := reg.RSI, reg.RDX, reg.RCX, reg.RBX, reg.R8
	q, q3, chunks, groups, cnt, t := reg.R9, reg.R10, reg.R11, reg.R12, reg.R13, reg.RAX
	off := reg.R14 // planeSumsAt: an offset read from the table
	pix := q       // planeSumsAt: the bytes of an offset's unit
	col := func(j int) reg.VecPhysical { return isa.vec(4 + j) }
	b := func(u int) reg.VecPhysical { return isa.vec(u) }
	// add adds to v the vector at p (strided) or at src + pix times the
	// offset p points at, disp bytes on (table).
	add := func(v reg.VecPhysical, m operand.Mem) {
		if table {
			c.MOVLQSX(m, off)
			c.IMULQ(pix, off)
			c.VADDPS(operand.Mem{Base: src, Index: off, Scale: 1}, v, v)
			return
		}
		c.VADDPS(m, v, v)
	}

	c.Load(c.Param("src"), src)
	if table {
		c.Load(c.Param("offs"), step) // step holds the table
		c.Load(c.Param("pix"), pix)
	} else {
		c.Load(c.Param("step"), step)
	}
	c.Load(c.Param("n"), n)
	// chunks = n / 4W, groups = (n mod 4W) / W; the last n mod W vectors
	// go one at a time.
	c.MOVQ(n, chunks)
	c.SHRQ(operand.U8(log2(4*W)), chunks)
	c.MOVQ(n, groups)
	c.ANDQ(operand.U32(4*W-1), groups)
	c.SHRQ(operand.U8(log2(W)), groups)
	if !table {
		// q = W·step, q3 = 3·q, t = 4W·step: the strides between
		// buckets and between groups.
		c.MOVQ(step, q)
		c.SHLQ(operand.U8(log2(W)), q)
		c.LEAQ(operand.Mem{Base: q, Index: q, Scale: 2}, q3)
		c.MOVQ(q, t)
		c.SHLQ(operand.U8(2), t)
	}

	for j := 0; j < W; j++ {
		for u := 0; u < 4; u++ {
			zero(c, isa, b(u))
		}
		// p = bucket column j of the first group: src + j·step, or the
		// table's entry j.
		switch {
		case table:
			c.LEAQ(operand.Mem{Base: step, Disp: 4 * j}, p)
		case j > 0:
			c.IMUL3Q(operand.Imm(uint64(j)), step, p)
			c.ADDQ(src, p)
		default:
			c.MOVQ(src, p)
		}
		lc := fmt.Sprintf("chunks%d", j)
		ld := fmt.Sprintf("chunksDone%d", j)
		c.MOVQ(chunks, cnt)
		c.TESTQ(cnt, cnt)
		c.JZ(operand.LabelRef(ld))
		c.Label(lc)
		if table {
			for u := 0; u < 4; u++ {
				add(b(u), operand.Mem{Base: p, Disp: 4 * u * W})
			}
			c.ADDQ(operand.U32(4*4*W), p)
		} else {
			add(b(0), operand.Mem{Base: p})
			add(b(1), operand.Mem{Base: p, Index: q, Scale: 1})
			add(b(2), operand.Mem{Base: p, Index: q, Scale: 2})
			add(b(3), operand.Mem{Base: p, Index: q3, Scale: 1})
			c.ADDQ(t, p)
		}
		c.DECQ(cnt)
		c.JNZ(operand.LabelRef(lc))
		c.Label(ld)
		// The whole vectors left: into bucket 0 of the column, W apart.
		lg := fmt.Sprintf("groups%d", j)
		lgd := fmt.Sprintf("groupsDone%d", j)
		c.MOVQ(groups, cnt)
		c.TESTQ(cnt, cnt)
		c.JZ(operand.LabelRef(lgd))
		c.Label(lg)
		add(b(0), operand.Mem{Base: p})
		if table {
			c.ADDQ(operand.U32(4*W), p)
		} else {
			c.ADDQ(q, p)
		}
		c.DECQ(cnt)
		c.JNZ(operand.LabelRef(lg))
		c.Label(lgd)
		// combine: 0 += 1, 2 += 3, 0 += 2.
		c.VADDPS(b(1), b(0), b(0))
		c.VADDPS(b(3), b(2), b(2))
		c.VADDPS(b(2), b(0), col(j))
	}
	// hreduce: lane j += lane j + W/2, then W/4, ... down to lane 0.
	for h := W / 2; h >= 1; h /= 2 {
		for j := 0; j < h; j++ {
			c.VADDPS(col(j+h), col(j), col(j))
		}
	}
	// The vectors left one at a time, from chunks·4W + groups·W.
	c.MOVQ(chunks, p)
	c.SHLQ(operand.U8(2), p)
	c.ADDQ(groups, p)
	if table {
		c.SHLQ(operand.U8(log2(4*W)), p) // (4·chunks + groups)·W·4 bytes
		c.ADDQ(step, p)
	} else {
		c.IMULQ(q, p) // (4·chunks + groups)·W·step
		c.ADDQ(src, p)
	}
	c.MOVQ(n, end)
	c.ANDQ(operand.U32(W-1), end)
	c.JZ(operand.LabelRef("store"))
	c.Label("tail")
	add(col(0), operand.Mem{Base: p})
	if table {
		c.ADDQ(operand.U8(4), p)
	} else {
		c.ADDQ(step, p)
	}
	c.DECQ(end)
	c.JNZ(operand.LabelRef("tail"))
	c.Label("store")
	c.Load(c.Param("dst"), t)
	c.VMOVUPS(col(0), operand.Mem{Base: t})
	c.VZEROUPPER()
	c.RET()
}

// log2 returns the base-2 logarithm of the power of two v.
func log2(v int) int {
	k := 0
	for 1<<k < v {
		k++
	}
	if 1<<k != v {
		panic(fmt.Sprintf("asmgen: log2(%d): not a power of two", v))
	}
	return k
}
