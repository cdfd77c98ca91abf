package caffe

import "github.com/sparknet-go/sparknet/ndarray/kernel"

// The linear congruential generator of the synthetic batches: state ←
// lcgMul·state + lcgAdd (mod 2³²).
const lcgMul, lcgAdd = 1664525, 1013904223

// FillSynthetic sets data[i] to the top 24 bits of the next states of a
// linear congruential generator, over 2²⁴ (uniform in [0, 1)), and returns
// the last state: the synthetic batches of sparknet time and of the
// training benchmarks, cheap enough not to weigh in a timed iteration
// (kernel.LCGFill: vectors of states stepped side by side, the values of
// the generator stepped one at a time, bit for bit).
func FillSynthetic(data []float32, state uint32) uint32 {
	return kernel.LCGFill(data, state, lcgMul, lcgAdd)
}
