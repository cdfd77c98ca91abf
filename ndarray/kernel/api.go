package kernel

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices on
// the calling goroutine, where op(X) is X or its transpose as transA and
// transB say. op(A) is m×k, op(B) is k×n and C is m×n; lda, ldb and ldc are
// the row strides of A, B and C as stored. When beta is 0, C is not read
// (NaNs in C do not propagate).
//
// Sgemm panics if a dimension is negative, a leading dimension is smaller
// than the stored row, or a slice is too short for its matrix.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("Sgemm", transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	active.sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// ReserveWorkspaces makes the packing buffers of products for n more
// goroutines, so that those goroutines, the product workers and one
// calling goroutine can run products at once without allocating, even
// the first time they overlap. A package that starts goroutines that run
// products (a pool of workers) calls it for each one it starts. The
// buffers of the largest product so far are made at once; those of a
// later, larger one when it runs. ReserveWorkspaces(-n) gives back a
// reservation of n, when its goroutines have ended.
func ReserveWorkspaces(n int) { workspaces.reserve(n) }

// SgemmParallel is Sgemm that may split the product over at most threads
// goroutines. threads <= 1 runs on the calling goroutine.
func SgemmParallel(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("SgemmParallel", transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	active.parallel(threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Im2col unrolls the image data (channels×height×width) into the column
// matrix col of shape (channels*kh*kw) × (outH*outW), as Caffe's im2col_cpu,
// with outH = (height+2*padH-(dilH*(kh-1)+1))/strideH + 1 and likewise outW.
// Positions in the padding read as zero.
//
// Im2col panics on a non-positive kernel size, stride or dilation, a
// negative size or padding, or a slice too short for its shape.
func Im2col(data []float32, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW int, col []float32) {
	g := newConvGeom("Im2col", channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW, len(data))
	g.checkCol("Im2col", len(col), g.outH*g.outW)
	g.im2col(data, col, g.outH*g.outW)
}

// Im2colLd is Im2col writing the rows of the column matrix ldc floats
// apart (ldc >= outH*outW), so that the columns of several images can lie
// side by side in one matrix: with ldc = n*outH*outW, image j's columns
// start at col[j*outH*outW].
func Im2colLd(data []float32, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW int, col []float32, ldc int) {
	g := newConvGeom("Im2colLd", channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW, len(data))
	g.checkCol("Im2colLd", len(col), ldc)
	g.im2col(data, col, ldc)
}

// Col2im is the adjoint of Im2col: it sets data (channels×height×width) to
// zero and then adds every column entry back into the image position it was
// read from.
func Col2im(col []float32, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW int, data []float32) {
	g := newConvGeom("Col2im", channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW, len(data))
	g.checkCol("Col2im", len(col), g.outH*g.outW)
	g.col2im(col, g.outH*g.outW, data)
}

// Col2imLd is Col2im reading a column matrix whose rows are ldc floats
// apart, the adjoint of Im2colLd.
func Col2imLd(col []float32, ldc int, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW int, data []float32) {
	g := newConvGeom("Col2imLd", channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW, len(data))
	g.checkCol("Col2imLd", len(col), ldc)
	g.col2im(col, ldc, data)
}

// ConvOutSize is the output extent of a convolution along one axis.
func ConvOutSize(in, kernel, pad, stride, dilation int) int {
	return (in+2*pad-(dilation*(kernel-1)+1))/stride + 1
}
