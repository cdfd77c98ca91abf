//go:build !noasm

package kernel

// reluSigns runs the kernel of the active implementation: AVX-512 on all
// the values, AVX2 on whole blocks of 8 and Go on the rest.
func reluSigns(dst, x []float32, slope float32, signs []uint64) {
	switch active.name {
	case "avx512":
		reluSignsAVX512(dst, x, slope, &signs[0])
	case "avx2":
		full := len(x) &^ 7
		if full > 0 {
			reluSignsAVX2(dst[:full], x[:full], slope, &signs[0])
		}
		reluSignsGo(dst, x, slope, signs, full)
	default:
		reluSignsGo(dst, x, slope, signs, 0)
	}
}

// reluGradSigns runs the gradient kernel of the active implementation, as
// reluSigns.
func reluGradSigns(dx, dy []float32, signs []uint64, slope float32) {
	switch active.name {
	case "avx512":
		reluGradSignsAVX512(dx, dy, &signs[0], slope)
	case "avx2":
		full := len(dy) &^ 7
		if full > 0 {
			reluGradSignsAVX2(dx[:full], dy[:full], &signs[0], slope)
		}
		reluGradSignsGo(dx, dy, signs, slope, full)
	default:
		reluGradSignsGo(dx, dy, signs, slope, 0)
	}
}
