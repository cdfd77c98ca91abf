//go:build !noasm

package kernel

// The weight-gradient kernels for a kernel row of five weights
// (directKernels.gradRow), added to the AVX-512 direct kernels. AVX2 has
// none: its registers hold two output channels of such a row, which ran
// no faster than its gradSeq tile of three channels and four weights.
func init() {
	rowAVX512 := [...]directSeqFunc{directGradRowAVX512x1, directGradRowAVX512x2, directGradRowAVX512x3, directGradRowAVX512x4}
	avx512Gemm.direct.rmr = len(rowAVX512)
	avx512Gemm.direct.gradRow = func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
		rowAVX512[mr-1](dy, dyStep, dySkip, x, offs, xSkip, oh, ow, acc, accRow, load, groups, pf)
	}
}
