//go:build !noasm

package kernel

var (
	convRowsAVX512 = [...]func(k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool){
		convRowsAVX512x1, convRowsAVX512x2, convRowsAVX512x3, convRowsAVX512x4, convRowsAVX512x5, convRowsAVX512x6,
	}
	convRowsAVX2 = [...]func(k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool){
		convRowsAVX2x1, convRowsAVX2x2, convRowsAVX2x3,
	}
	rowsAVX512 = &rowKernels{lanes: 16, mr: len(convRowsAVX512),
		conv: func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool) {
			convRowsAVX512[mr-1](k, a, x, off, xrow, y, yrow, ych, npair, bias, load)
		}}
	rowsAVX2 = &rowKernels{lanes: 8, mr: len(convRowsAVX2),
		conv: func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool) {
			convRowsAVX2[mr-1](k, a, x, off, xrow, y, yrow, ych, npair, bias, load)
		}}
)

// rowKernelsOf returns the row-convolution kernels of an implementation,
// or nil if it has none (the portable one: the column path is faster).
func rowKernelsOf(g *gemmImpl) *rowKernels {
	switch g {
	case avx512Gemm:
		return rowsAVX512
	case avx2Gemm:
		return rowsAVX2
	}
	return nil
}
