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

// The weight-gradient kernels for the nine weights of an input channel
// of a 3×3 kernel (directKernels.gradWin), added to the AVX-512 direct
// kernels. AVX2 has none: its sixteen registers do not hold the window
// beside the sums.
func init() {
	winAVX512 := [...]directSeqFunc{directGradWinAVX512x1, directGradWinAVX512x2}
	avx512Gemm.direct.wmr = len(winAVX512)
	avx512Gemm.direct.gradWin = func(mr int, dy *float32, dyStep, dySkip int, x *float32, offs *int32, xSkip, oh, ow int, acc *float32, accRow int, load bool, groups, pf int) {
		winAVX512[mr-1](dy, dyStep, dySkip, x, offs, xSkip, oh, ow, acc, accRow, load, groups, pf)
	}
}
