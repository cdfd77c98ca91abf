//go:build noasm || !amd64

package kernel

func reluSigns(dst, x []float32, slope float32, signs []uint64) {
	reluSignsGo(dst, x, slope, signs, 0)
}

func reluGradSigns(dx, dy []float32, signs []uint64, slope float32) {
	reluGradSignsGo(dx, dy, signs, slope, 0)
}
