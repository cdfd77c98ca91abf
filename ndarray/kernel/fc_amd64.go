//go:build !noasm

package kernel

var (
	fcRowsAVX512 = [...]fcRowsFunc{
		fcRowsAVX512x1, fcRowsAVX512x2, fcRowsAVX512x3, fcRowsAVX512x4, fcRowsAVX512x5,
		fcRowsAVX512x6, fcRowsAVX512x7, fcRowsAVX512x8, fcRowsAVX512x9, fcRowsAVX512x10,
		fcRowsAVX512x11, fcRowsAVX512x12, fcRowsAVX512x13, fcRowsAVX512x14,
	}
	fcPackedAVX512 = [...]fcPackedFunc{
		fcPackedAVX512x1, fcPackedAVX512x2, fcPackedAVX512x3, fcPackedAVX512x4, fcPackedAVX512x5,
		fcPackedAVX512x6, fcPackedAVX512x7, fcPackedAVX512x8, fcPackedAVX512x9, fcPackedAVX512x10,
		fcPackedAVX512x11, fcPackedAVX512x12, fcPackedAVX512x13, fcPackedAVX512x14,
	}
	fcRowsAVX2 = [...]fcRowsFunc{
		fcRowsAVX2x1, fcRowsAVX2x2, fcRowsAVX2x3, fcRowsAVX2x4, fcRowsAVX2x5, fcRowsAVX2x6,
	}
	fcPackedAVX2 = [...]fcPackedFunc{
		fcPackedAVX2x1, fcPackedAVX2x2, fcPackedAVX2x3, fcPackedAVX2x4, fcPackedAVX2x5, fcPackedAVX2x6,
	}
)

func init() {
	avx512Gemm.fc = &fcKernels{
		rows: func(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, nr int, beta float32, loadC bool) {
			fcRowsAVX512[mr-1](k, a, lda, b, ldb, c, ldc, nr, beta, loadC)
		},
		packed: func(mr, k int, a, b *float32, ldb, pf int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool) {
			fcPackedAVX512[mr-1](k, a, b, ldb, pf, t, ldt, c, ldc, nr, beta, loadC)
		},
	}
	avx2Gemm.fc = &fcKernels{
		rows: func(mr, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc, nr int, beta float32, loadC bool) {
			fcRowsAVX2[mr-1](k, a, lda, b, ldb, c, ldc, nr, beta, loadC)
		},
		packed: func(mr, k int, a, b *float32, ldb, pf int, t *float32, ldt int, c *float32, ldc, nr int, beta float32, loadC bool) {
			fcPackedAVX2[mr-1](k, a, b, ldb, pf, t, ldt, c, ldc, nr, beta, loadC)
		},
	}
}
