//go:build !noasm

package kernel

func init() {
	avx512Vec.adam, avx512Vec.nesterov, avx512Vec.rmsProp = adamAVX512, nesterovAVX512, rmsPropAVX512
	avx2Vec.adam, avx2Vec.nesterov, avx2Vec.rmsProp = adamAVX2, nesterovAVX2, rmsPropAVX2
	avx512Vec.adaGrad, avx512Vec.adaDelta = adaGradAVX512, adaDeltaAVX512
	avx2Vec.adaGrad, avx2Vec.adaDelta = adaGradAVX2, adaDeltaAVX2
}
