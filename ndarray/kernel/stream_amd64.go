//go:build !noasm

package kernel

func init() {
	avx512Vec.sgdTo = func(w, g, h, d []float32, decay, rate, momentum float32) {
		if decay == 0 {
			sgdToNoDecayAVX512(w, g, h, d, decay, rate, momentum)
		} else {
			sgdToAVX512(w, g, h, d, decay, rate, momentum)
		}
	}
	avx512Vec.sgdAhead = func(w, g, h []float32, decay, rate, momentum float32, ahead int) {
		if decay == 0 {
			sgdAheadNoDecayAVX512(w, g, h, decay, rate, momentum, ahead)
		} else {
			sgdAheadAVX512(w, g, h, decay, rate, momentum, ahead)
		}
	}
	avx512Vec.fill = func(x []float32, v float32, nonTemporal bool) {
		if nonTemporal {
			streamFillNTAVX512(x, v)
		} else {
			streamFillAVX512(x, v)
		}
	}
	avx2Vec.sgdTo = func(w, g, h, d []float32, decay, rate, momentum float32) {
		if decay == 0 {
			sgdToNoDecayAVX2(w, g, h, d, decay, rate, momentum)
		} else {
			sgdToAVX2(w, g, h, d, decay, rate, momentum)
		}
	}
	avx2Vec.sgdAhead = func(w, g, h []float32, decay, rate, momentum float32, ahead int) {
		if decay == 0 {
			sgdAheadNoDecayAVX2(w, g, h, decay, rate, momentum, ahead)
		} else {
			sgdAheadAVX2(w, g, h, decay, rate, momentum, ahead)
		}
	}
	avx2Vec.fill = func(x []float32, v float32, nonTemporal bool) {
		if nonTemporal {
			streamFillNTAVX2(x, v)
		} else {
			streamFillAVX2(x, v)
		}
	}
}
