package ndarray

import "github.com/sparknet-go/sparknet/ndarray/kernel"

// MatMul returns the matrix product of two 2-D arrays (m×k times k×n). A
// transposed view is handled without copying.
func (a *Array) MatMul(b *Array) *Array {
	if len(a.shape) != 2 || len(b.shape) != 2 {
		panic(shapeError("MatMul: needs 2-D arrays, got %v and %v", a.shape, b.shape))
	}
	m, k := a.shape[0], a.shape[1]
	if b.shape[0] != k {
		panic(shapeError("MatMul: %v times %v: inner dimensions %d and %d differ", a.shape, b.shape, k, b.shape[0]))
	}
	n := b.shape[1]
	c := New(m, n)
	if m == 0 || n == 0 {
		return c
	}
	ad, ta, lda := gemmOperand(a)
	bd, tb, ldb := gemmOperand(b)
	kernel.SgemmParallel(Threads, ta, tb, m, n, k, 1, ad, lda, bd, ldb, 0, c.data, n)
	return c
}

// Threads is the number of goroutines MatMul may use.
var Threads = 1

// gemmOperand returns the storage, transpose flag and leading dimension with
// which a 2-D array can be passed to Sgemm, copying only if neither its rows
// nor its columns are contiguous.
func gemmOperand(a *Array) ([]float32, bool, int) {
	r, c := a.shape[0], a.shape[1]
	if a.strides[1] == 1 || c == 1 {
		if r == 1 {
			return a.data[a.offset:], false, c
		}
		if ld := a.strides[0]; ld >= c {
			return a.data[a.offset:], false, ld
		}
	}
	if a.strides[0] == 1 || r == 1 {
		if c == 1 {
			return a.data[a.offset:], true, r
		}
		if ld := a.strides[1]; ld >= r {
			return a.data[a.offset:], true, ld
		}
	}
	cp := a.Copy()
	return cp.data, false, c
}
