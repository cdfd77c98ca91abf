//go:build !noasm

package kernel

import "golang.org/x/sys/cpu"

var (
	sgemmAVX512Kernels = [...]func(k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool){
		sgemmAVX512x1, sgemmAVX512x2, sgemmAVX512x3, sgemmAVX512x4, sgemmAVX512x5,
		sgemmAVX512x6, sgemmAVX512x7, sgemmAVX512x8, sgemmAVX512x9, sgemmAVX512x10,
		sgemmAVX512x11, sgemmAVX512x12, sgemmAVX512x13, sgemmAVX512x14,
	}
	sgemmAVX2Kernels = [...]func(k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool){
		sgemmAVX2x1, sgemmAVX2x2, sgemmAVX2x3, sgemmAVX2x4, sgemmAVX2x5, sgemmAVX2x6,
	}
)

var avx512Gemm = &gemmImpl{
	name: "avx512", mr: len(sgemmAVX512Kernels), nr: 32, kc: 256, mc: 256, nc: 1024,
	kernel: func(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool) {
		sgemmAVX512Kernels[mr-1](k, a, b, c, ldc, nr, beta, loadC)
	},
	copyChunks:     copyChunksAVX512,
	packATile:      packAAVX512,
	packATransTile: packATransAVX512,
	vec:            avx512Vec,
}

var avx2Gemm = &gemmImpl{
	name: "avx2", mr: len(sgemmAVX2Kernels), nr: 16, kc: 256, mc: 192, nc: 1024,
	kernel: func(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool) {
		sgemmAVX2Kernels[mr-1](k, a, b, c, ldc, nr, beta, loadC)
	},
	copyChunks: copyChunksAVX2,
	vec:        avx2Vec,
}

var avx512Vec = &vecImpl{
	name: "avx512", axpy: axpyAVX512, axpby: axpbyAVX512, scale: scaleAVX512,
	add: addAVX512, mul: mulAVX512, dot: dotAVX512, sum: sumAVX512, max: maxAVX512,
	exp: func(dst, x []float32) { expBlocks(true, dst, x) },
}

var avx2Vec = &vecImpl{
	name: "avx2", axpy: axpyAVX2, axpby: axpbyAVX2, scale: scaleAVX2,
	add: addAVX2, mul: mulAVX2, dot: dotAVX2, sum: sumAVX2, max: maxAVX2,
	exp: func(dst, x []float32) { expBlocks(false, dst, x) },
}

// available lists the implementations this CPU runs, fastest first.
func available() []*gemmImpl {
	var impls []*gemmImpl
	if cpu.X86.HasAVX512F && cpu.X86.HasBMI2 && cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		impls = append(impls, avx512Gemm)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		impls = append(impls, avx2Gemm)
	}
	return append(impls, goGemm)
}

// expBlocks runs the AVX-512 (wide) or AVX2 exp kernel, which handle
// whole vectors, on x, and on the tail through a buffer of one vector.
// The kernels are called directly so that the buffer stays on the stack.
func expBlocks(wide bool, dst, x []float32) {
	block := 8
	if wide {
		block = 16
	}
	full := len(x) - len(x)%block
	var buf [16]float32
	tail := buf[:block]
	copy(tail, x[full:])
	if wide {
		expAVX512(dst[:full], x[:full])
		expAVX512(tail, tail)
	} else {
		expAVX2(dst[:full], x[:full])
		expAVX2(tail, tail)
	}
	copy(dst[full:len(x)], tail)
}
