//go:build !noasm

package kernel

var avx2LRN = &lrnKernels{
	scale: lrnScaleAVX2, forward75: lrnForward75AVX2, ratio: lrnRatioAVX2, ratio75: lrnRatio75AVX2,
	backward: lrnBackwardAVX2, backRelu: lrnBackwardReLUAVX2, step75: lrnStep75AVX2, step75r: lrnStep75ReLUAVX2,
	step75x: lrnStep75XAVX2, step75xr: lrnStep75XReLUAVX2,
}

// lrnFor returns the LRN kernels of the vector primitives v: the 256-bit
// ones for both vector implementations (see the generator's lrn.go).
func lrnFor(v *vecImpl) *lrnKernels {
	switch v {
	case avx512Vec, avx2Vec:
		return avx2LRN
	}
	return goLRN
}
