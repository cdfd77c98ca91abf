//go:build noasm || !amd64

package kernel

// rowKernelsOf returns nil: the portable kernels have no row convolution
// (the column path is faster).
func rowKernelsOf(g *gemmImpl) *rowKernels { return nil }
