//go:build !noasm

package kernel

// The streaming interleave of the direct convolution's padded output
// gradient (directKernels.interleaveStream), added to the AVX-512 direct
// kernels. AVX2 has none: its vectors fill half a cache line (see
// internal/asmgen/dstream.go).
func init() {
	avx512Gemm.direct.interleaveStream = interleaveStreamAVX512
	avx512Gemm.direct.fence = storeFenceAVX512
}
