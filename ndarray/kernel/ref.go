package kernel

// Reference implementations: plain loops, used as the portable fallback and
// as the oracle in tests.

func sgemmRef(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
		} else if beta != 1 {
			for j := range ci {
				ci[j] *= beta
			}
		}
		for p := 0; p < k; p++ {
			var av float32
			if transA {
				av = a[p*lda+i]
			} else {
				av = a[i*lda+p]
			}
			av *= alpha
			if av == 0 {
				continue
			}
			if transB {
				for j := 0; j < n; j++ {
					ci[j] += av * b[j*ldb+p]
				}
			} else {
				bp := b[p*ldb : p*ldb+n]
				for j, bv := range bp {
					ci[j] += av * bv
				}
			}
		}
	}
}

func im2colRef(data []float32, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW int, col []float32) {
	outH := ConvOutSize(height, kh, padH, strideH, dilH)
	outW := ConvOutSize(width, kw, padW, strideW, dilW)
	idx := 0
	for c := 0; c < channels; c++ {
		img := data[c*height*width:]
		for ki := 0; ki < kh; ki++ {
			for kj := 0; kj < kw; kj++ {
				for oy := 0; oy < outH; oy++ {
					y := oy*strideH - padH + ki*dilH
					for ox := 0; ox < outW; ox++ {
						x := ox*strideW - padW + kj*dilW
						if y >= 0 && y < height && x >= 0 && x < width {
							col[idx] = img[y*width+x]
						} else {
							col[idx] = 0
						}
						idx++
					}
				}
			}
		}
	}
}

func col2imRef(col []float32, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW int, data []float32) {
	clear(data[:channels*height*width])
	outH := ConvOutSize(height, kh, padH, strideH, dilH)
	outW := ConvOutSize(width, kw, padW, strideW, dilW)
	idx := 0
	for c := 0; c < channels; c++ {
		img := data[c*height*width:]
		for ki := 0; ki < kh; ki++ {
			for kj := 0; kj < kw; kj++ {
				for oy := 0; oy < outH; oy++ {
					y := oy*strideH - padH + ki*dilH
					for ox := 0; ox < outW; ox++ {
						x := ox*strideW - padW + kj*dilW
						if y >= 0 && y < height && x >= 0 && x < width {
							img[y*width+x] += col[idx]
						}
						idx++
					}
				}
			}
		}
	}
}

func axpyRef(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

func scaleRef(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}

func dotRef(x, y []float32) float32 {
	y = y[:len(x)]
	var s float32
	for i, v := range x {
		s += v * y[i]
	}
	return s
}
