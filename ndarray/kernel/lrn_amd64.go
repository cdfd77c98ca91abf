//go:build !noasm

package kernel

var (
	avx512LRN = &lrnKernels{
		scale: lrnScaleAVX512, forward75: lrnForward75AVX512, ratio: lrnRatioAVX512, ratio75: lrnRatio75AVX512,
		backward: lrnBackwardAVX512,
	}
	avx2LRN = &lrnKernels{
		scale: lrnScaleAVX2, forward75: lrnForward75AVX2, ratio: lrnRatioAVX2, ratio75: lrnRatio75AVX2,
		backward: lrnBackwardAVX2,
	}
)

// lrnFor returns the LRN kernels of the vector primitives v.
func lrnFor(v *vecImpl) *lrnKernels {
	switch v {
	case avx512Vec:
		return avx512LRN
	case avx2Vec:
		return avx2LRN
	}
	return goLRN
}
