//go:build !linux

package kernel

// largeSlice returns n zeroed floats (see the Linux version).
func largeSlice(n int) []float32 { return make([]float32, n) }
