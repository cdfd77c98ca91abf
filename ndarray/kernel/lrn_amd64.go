//go:build !noasm

package kernel

import (
	"math"
	"sync"
)

var avx2LRN = &lrnKernels{
	scale: lrnScaleAVX2, forward75: lrnForward75AVX2, ratio: lrnRatioAVX2, ratio75: lrnRatio75AVX2,
	backward: lrnBackwardAVX2, backRelu: lrnBackwardReLUAVX2, step75: lrnStep75AVX2, step75r: lrnStep75ReLUAVX2,
	step75x: lrnStep75XAVX2, step75xr: lrnStep75XReLUAVX2,
}

// avx512LRN: the kernels with β = ¾, whose rate is that of the divider
// and square-root unit, in 512-bit vectors with their square roots on the
// FMA units (see the generator's lrn512.go); the others, bound by memory,
// in 256-bit vectors.
var avx512LRN = &lrnKernels{
	scale: lrnScaleAVX2, forward75: lrnForward75AVX512, ratio: lrnRatioAVX2, ratio75: lrnRatio75AVX512,
	backward: lrnBackwardAVX2, backRelu: lrnBackwardReLUAVX2, step75: lrnStep75AVX512, step75r: lrnStep75ReLUAVX512,
	step75x: lrnStep75XAVX512, step75xr: lrnStep75XReLUAVX512,
}

// lrnFor returns the LRN kernels of the vector primitives v.
func lrnFor(v *vecImpl) *lrnKernels {
	switch v {
	case avx512Vec:
		if lrnSqrtExact() {
			return avx512LRN
		}
		return avx2LRN
	case avx2Vec:
		return avx2LRN
	}
	return goLRN
}

// lrnSqrtExact reports whether the AVX-512 LRN kernels' square root
// (lrnSqrtAVX512) gives VSQRTPS's result on this core, checked once on
// every 64th float32 in [1, 4) (every 64th significand at both parities
// of the exponent, which by scaling covers the range where the kernels
// use it; the package's tests check every one): a guard against a core
// whose estimate (VRSQRT14PS) differs from the ones it was verified on.
var lrnSqrtExact = sync.OnceValue(func() bool { return lrnSqrtMatches(1, 4, 64) })

// lrnSqrtMatches compares lrnSqrtAVX512 with VSQRTPS (sqrtAVX512) on
// every step-th float32 in [lo, hi), a block at a time.
func lrnSqrtMatches(lo, hi float32, step uint32) bool {
	const block = 1 << 14
	x, got, want := make([]float32, block), make([]float32, block), make([]float32, block)
	end := math.Float32bits(hi)
	for b := math.Float32bits(lo); b < end; {
		n := 0
		for ; n < block && b < end; n++ {
			x[n] = math.Float32frombits(b)
			b += step
		}
		lrnSqrtAVX512(got[:n], x[:n])
		sqrtAVX512(want[:n], x[:n])
		for i := range n {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				return false
			}
		}
	}
	return true
}
