//go:build !noasm

package kernel

// expVec computes ExpF32's values with the active implementation's
// vector kernel from the front of src, a whole number of steps up to the
// first that it leaves (a value out of its range), and returns how many
// it computed.
func expVec(dst, src []float32) int {
	n := len(src) &^ (expStep - 1)
	if active.name != "avx512" || n == 0 {
		return 0
	}
	return expF32AVX512(dst[:n], src[:n], &expTable[0])
}
