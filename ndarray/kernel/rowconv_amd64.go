//go:build !noasm

package kernel

var (
	convRowsAVX512 = [...]func(k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool){
		convRowsAVX512x1, convRowsAVX512x2, convRowsAVX512x3, convRowsAVX512x4, convRowsAVX512x5, convRowsAVX512x6,
	}
	convRowsAVX2 = [...]func(k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool){
		convRowsAVX2x1, convRowsAVX2x2, convRowsAVX2x3,
	}
	convRowsGradAVX512 = [...]func(dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int){
		convRowsGradAVX512x1, convRowsGradAVX512x2, convRowsGradAVX512x3, convRowsGradAVX512x4,
		convRowsGradAVX512x5, convRowsGradAVX512x6,
	}
	convRowsGradAVX2 = [...]func(dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int){
		convRowsGradAVX2x1, convRowsGradAVX2x2, convRowsGradAVX2x3,
	}
	convRowsGradTAVX512 = [...]func(dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int){
		convRowsGradTAVX512x1, convRowsGradTAVX512x2, convRowsGradTAVX512x3, convRowsGradTAVX512x4,
		convRowsGradTAVX512x5, convRowsGradTAVX512x6,
	}
	convRowsGradTAVX2 = [...]func(dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int){
		convRowsGradTAVX2x1, convRowsGradTAVX2x2, convRowsGradTAVX2x3,
	}
	convFlatAVX512 = [...]func(k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool){
		convFlatAVX512x1v3, convFlatAVX512x2v3, convFlatAVX512x3v3, convFlatAVX512x4v3,
		convFlatAVX512x5v3, convFlatAVX512x6v3, convFlatAVX512x7v3, convFlatAVX512x8v3,
	}
	convFlatAVX2 = [...]func(k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool){
		convFlatAVX2x1v3, convFlatAVX2x2v3, convFlatAVX2x3v3, convFlatAVX2x4v3,
	}
	rowsAVX512 = &rowKernels{lanes: 16, mr: len(convRowsAVX512),
		conv: func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool) {
			convRowsAVX512[mr-1](k, a, x, off, xrow, y, yrow, ych, npair, bias, load)
		},
		gmr: len(convRowsGradAVX512), gnr: 4,
		grad: func(mr int, dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int) {
			convRowsGradAVX512[mr-1](dy, dych, dyskip, x, offs, xskip, nrows, nvec, acc, accRow)
		},
		deint: deint4AVX512,
		gtm:   len(convRowsGradTAVX512),
		gradT: func(mr int, dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int) {
			convRowsGradTAVX512[mr-1](dy, dyStep, x, offs, xskip, nrows, npix, acc, accRow)
		},
		trans:    interleaveAVX512,
		prefetch: prefetchRowsT1,
		fmr:      len(convFlatAVX512), fnv: 3,
		flat: func(mr, k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool) {
			convFlatAVX512[mr-1](k, a, x, off, y, ych, bias, load)
		}}
	rowsAVX2 = &rowKernels{lanes: 8, mr: len(convRowsAVX2),
		conv: func(mr, k int, a, x *float32, off *int32, xrow int, y *float32, yrow, ych, npair int, bias *float32, load bool) {
			convRowsAVX2[mr-1](k, a, x, off, xrow, y, yrow, ych, npair, bias, load)
		},
		gmr: len(convRowsGradAVX2), gnr: 4,
		grad: func(mr int, dy *float32, dych, dyskip int, x *float32, offs *int32, xskip, nrows, nvec int, acc *float32, accRow int) {
			convRowsGradAVX2[mr-1](dy, dych, dyskip, x, offs, xskip, nrows, nvec, acc, accRow)
		},
		deint: deint4AVX2,
		gtm:   len(convRowsGradTAVX2),
		gradT: func(mr int, dy *float32, dyStep int, x *float32, offs *int32, xskip, nrows, npix int, acc *float32, accRow int) {
			convRowsGradTAVX2[mr-1](dy, dyStep, x, offs, xskip, nrows, npix, acc, accRow)
		},
		trans:    interleaveAVX2,
		prefetch: prefetchRowsT1,
		fmr:      len(convFlatAVX2), fnv: 3,
		flat: func(mr, k int, a, x *float32, off *int32, y *float32, ych int, bias *float32, load bool) {
			convFlatAVX2[mr-1](k, a, x, off, y, ych, bias, load)
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
