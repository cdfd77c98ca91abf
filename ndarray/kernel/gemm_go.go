package kernel

import "unsafe"

// goKernel is the portable microkernel. Full-height tiles keep the 4×4
// accumulators in local variables; shorter edge tiles take a plain loop.
func goKernel(mr, k int, a, b, c *float32, ldc, nr int, beta float32, loadC bool) {
	const NR = goNR
	var acc [goMR * NR]float32
	bs := unsafe.Slice(b, k*NR)
	if mr == goMR {
		as := unsafe.Slice(a, k*goMR)
		var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 float32
		for p := 0; p < k; p++ {
			bp := (*[NR]float32)(bs[p*NR:])
			ap := (*[goMR]float32)(as[p*goMR:])
			b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
			a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
			c20 += a2 * b0
			c21 += a2 * b1
			c22 += a2 * b2
			c23 += a2 * b3
			c30 += a3 * b0
			c31 += a3 * b1
			c32 += a3 * b2
			c33 += a3 * b3
		}
		acc = [goMR * NR]float32{c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33}
	} else {
		as := unsafe.Slice(a, mr*k)
		for p := 0; p < k; p++ {
			bp := (*[NR]float32)(bs[p*NR:])
			for i, av := range as[p*mr : p*mr+mr] {
				r := (*[NR]float32)(acc[i*NR:])
				for j := range r {
					r[j] += av * bp[j]
				}
			}
		}
	}
	storeTile(&acc, mr, nr, c, ldc, beta, loadC)
}

// Tile of the portable microkernel.
const (
	goMR = 4
	goNR = 4
)

var goGemm = &gemmImpl{name: "go", mr: goMR, nr: goNR, kc: 256, mc: 128, nc: 1024, kernel: goKernel, copyChunks: goCopyChunks, vec: goVec,
	peak: peakProbe{run: peakGo, flops: peakGoFLOPs, desc: "12 chains of scalar multiply-adds in Go"}}

func goCopyChunks(dst, src *float32, n, dstStride, srcStride int) {
	if n == 0 {
		return
	}
	d := unsafe.Slice(dst, (n-1)*dstStride+goNR)
	s := unsafe.Slice(src, (n-1)*srcStride+goNR)
	for i := 0; i < n; i++ {
		*(*[goNR]float32)(d[i*dstStride:]) = *(*[goNR]float32)(s[i*srcStride:])
	}
}

// storeTile writes the first nr columns of the mr rows of a tile of
// accumulators to c (rows ldc apart): as they are, or added to beta times
// what c holds when loadC.
func storeTile(acc *[goMR * goNR]float32, mr, nr int, c *float32, ldc int, beta float32, loadC bool) {
	cs := unsafe.Slice(c, (mr-1)*ldc+nr)
	for i := 0; i < mr; i++ {
		row := cs[i*ldc : i*ldc+nr]
		r := acc[i*goNR : i*goNR+nr]
		if loadC {
			for j := range row {
				row[j] = r[j] + beta*row[j]
			}
		} else {
			copy(row, r)
		}
	}
}
