package kernel

// gemv handles the products with a single row or column of C whose
// operands lie contiguously in memory, which need no packing: a row of C
// is a sum of rows of B (Axpy), a column of C a set of dot products. It
// computes the product as path says (see gemvPath) and reports whether it
// did: not for noGemv.
func (g *gemmImpl) gemv(path gemvPath, transA bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
	switch path {
	case noGemv:
		return false
	case gemvRow:
		// C[0][j] = beta*C[0][j] + sum_p alpha*op(A)[0][p] * B[p][j].
		row := c[:n]
		scaleMatrix(g.vec, 1, n, beta, row, ldc)
		for p := 0; p < k; p++ {
			ap := a[p]
			if transA {
				ap = a[p*lda]
			}
			g.vec.axpy(alpha*ap, b[p*ldb:p*ldb+n], row)
		}
		return true
	case gemvColumn:
		// C[i][0] = beta*C[i][0] + alpha * A[i][:] · op(B)[:][0], where
		// the column of op(B) is contiguous.
		col := b[:k]
		for i := 0; i < m; i++ {
			d := alpha * g.vec.dot(a[i*lda:i*lda+k], col)
			switch ci := &c[i*ldc]; beta {
			case 0:
				*ci = d
			case 1:
				*ci += d
			default:
				*ci = d + beta**ci
			}
		}
		return true
	}
	return false
}

// gemvPath is the way gemv computes a product, if any.
type gemvPath int

const (
	noGemv     gemvPath = iota // the blocked product
	gemvRow                    // a single row of C: Axpy over the rows of B
	gemvColumn                 // a single column of C: a dot product a row
)

// gemvPathOf returns the path of a product of m rows and n columns of C,
// with the transposes and B's leading dimension given: a single row of C
// with B not transposed, or else a single column of C with A not
// transposed and the column of op(B) contiguous, takes gemv. gemv sums in
// another order than the blocked product, so every part of a split
// product takes the path of the whole product (see part).
func gemvPathOf(transA, transB bool, m, n, ldb int) gemvPath {
	switch {
	case m == 1 && !transB:
		return gemvRow
	case n == 1 && !transA && (transB || ldb == 1):
		return gemvColumn
	}
	return noGemv
}
