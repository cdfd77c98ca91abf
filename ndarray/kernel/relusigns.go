package kernel

import "fmt"

// SignWords returns the number of uint64 words that hold the signs of n
// values for ReluSigns: one bit each.
func SignWords(n int) int { return (n + 63) / 64 }

// ReluSigns is Relu that also records which outputs are positive: bit
// i%64 of signs[i/64] is set when dst[i] > 0 and clear otherwise (the
// bits of the last word past len(x) are cleared). ReluGradSigns computes
// the gradient from these bits instead of reading the outputs back: a
// 32nd of the traffic. len(signs) must be at least SignWords(len(x)).
func ReluSigns(dst, x []float32, slope float32, signs []uint64) {
	checkLen("ReluSigns", "dst", len(dst), len(x))
	checkSigns("ReluSigns", len(signs), len(x))
	if len(x) == 0 {
		return
	}
	if r := len(x) % 64; r != 0 {
		signs[len(x)/64] = 0
	}
	reluSigns(dst[:len(x)], x, slope, signs)
}

// ReluGradSigns computes the gradient of Relu from the signs ReluSigns
// recorded: dx[i] = dy[i] if bit i of signs is set, else slope*dy[i],
// for i < len(dy) (len(dx) >= len(dy)); dx may be dy. With the signs of
// Relu's outputs these are ReluGrad's values with x the outputs (an
// in-place ReLU, as Caffe computes it), and with x the inputs when slope
// >= 0, for which an output is positive exactly when its input is.
func ReluGradSigns(dx, dy []float32, signs []uint64, slope float32) {
	checkLen("ReluGradSigns", "dx", len(dx), len(dy))
	checkSigns("ReluGradSigns", len(signs), len(dy))
	if len(dy) == 0 {
		return
	}
	reluGradSigns(dx[:len(dy)], dy, signs, slope)
}

// checkSigns panics unless words uint64s hold the signs of n values.
func checkSigns(name string, words, n int) {
	if words < SignWords(n) {
		panic(fmt.Sprintf("kernel: %s: len(signs) = %d, want >= SignWords(%d) = %d", name, words, n, SignWords(n)))
	}
}

// reluSignsGo is ReluSigns from value i on (i a multiple of 8), the bits
// of signs below i left as they are.
func reluSignsGo(dst, x []float32, slope float32, signs []uint64, i int) {
	for ; i < len(x); i++ {
		v := x[i]
		if !(v > 0) {
			v = v*slope + 0 // +0, not −0, for a negative v and slope 0
		}
		dst[i] = v
		bit := uint64(1) << (i % 64)
		if v > 0 {
			signs[i/64] |= bit
		} else {
			signs[i/64] &^= bit
		}
	}
}

// reluGradSignsGo is ReluGradSigns from value i on.
func reluGradSignsGo(dx, dy []float32, signs []uint64, slope float32, i int) {
	for ; i < len(dy); i++ {
		g := dy[i]
		if signs[i/64]&(1<<(i%64)) == 0 {
			g *= slope
		}
		dx[i] = g
	}
}
