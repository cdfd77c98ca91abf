//go:build !openblas || !cgo

package openblas

// Available reports whether the binding is compiled in.
const Available = false

// Sgemm panics: the binding needs the openblas build tag and cgo.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	panic("openblas: built without the openblas build tag")
}

// SetThreads does nothing without the binding.
func SetThreads(n int) {}

// Threads returns 0 without the binding.
func Threads() int { return 0 }
