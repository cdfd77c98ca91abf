//go:build !linux

package kernel

// HugePageFloats returns a zero-filled slice of n floats (see the Linux
// version, which also advises large ones into huge pages).
func HugePageFloats(n int) []float32 { return make([]float32, n) }
