package caffe

// The linear congruential generator of the synthetic batches, state ←
// lcgMul·state + lcgAdd (mod 2³²), and its steps of two, three and four
// (lcgMulK·state + lcgAddK), with which FillSynthetic computes four values
// from one state instead of each from the one before: the same values
// without the chain of dependent multiplications.
const (
	lcgMul, lcgAdd   = 1664525, 1013904223
	lcgMul2, lcgAdd2 = lcgMul * lcgMul & 0xffffffff, (lcgMul*lcgAdd + lcgAdd) & 0xffffffff
	lcgMul3, lcgAdd3 = lcgMul * lcgMul2 & 0xffffffff, (lcgMul*lcgAdd2 + lcgAdd) & 0xffffffff
	lcgMul4, lcgAdd4 = lcgMul * lcgMul3 & 0xffffffff, (lcgMul*lcgAdd3 + lcgAdd) & 0xffffffff
)

// FillSynthetic sets data[i] to the top 24 bits of the next states of a
// linear congruential generator, over 2²⁴ (uniform in [0, 1)), and returns
// the last state: the synthetic batches of sparknet time and of the
// training benchmarks, cheap enough not to weigh in a timed iteration.
func FillSynthetic(data []float32, state uint32) uint32 {
	i := 0
	for ; i+4 <= len(data); i += 4 {
		s1, s2 := lcgMul*state+lcgAdd, lcgMul2*state+lcgAdd2
		s3, s4 := lcgMul3*state+lcgAdd3, lcgMul4*state+lcgAdd4
		d := data[i : i+4 : i+4]
		d[0], d[1] = float32(s1>>8)/(1<<24), float32(s2>>8)/(1<<24)
		d[2], d[3] = float32(s3>>8)/(1<<24), float32(s4>>8)/(1<<24)
		state = s4
	}
	for ; i < len(data); i++ {
		state = state*lcgMul + lcgAdd
		data[i] = float32(state>>8) / (1 << 24)
	}
	return state
}
