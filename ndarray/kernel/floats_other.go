//go:build !linux

package kernel

// largeFloats returns a zero-filled slice of n floats (see the Linux
// version, which also advises large ones into huge pages).
func largeFloats(n int) []float32 { return make([]float32, n) }
