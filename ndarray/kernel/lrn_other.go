//go:build noasm || !amd64

package kernel

// lrnFor returns the LRN kernels of the vector primitives: the portable
// ones.
func lrnFor(*vecImpl) *lrnKernels { return goLRN }
