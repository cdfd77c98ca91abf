package kernel

import "fmt"

// convGeom is the checked geometry of one Im2col or Col2im call.
type convGeom struct {
	channels, height, width int
	kh, kw                  int
	padH, padW              int
	strideH, strideW        int
	dilH, dilW              int
	outH, outW              int
}

func newConvGeom(name string, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW, dataLen, colLen int) convGeom {
	switch {
	case channels < 0 || height < 0 || width < 0:
		panic(fmt.Sprintf("kernel: %s: negative image shape %d×%d×%d", name, channels, height, width))
	case kh <= 0 || kw <= 0:
		panic(fmt.Sprintf("kernel: %s: kernel size %d×%d, want >= 1", name, kh, kw))
	case padH < 0 || padW < 0:
		panic(fmt.Sprintf("kernel: %s: padding %d×%d, want >= 0", name, padH, padW))
	case strideH <= 0 || strideW <= 0:
		panic(fmt.Sprintf("kernel: %s: stride %d×%d, want >= 1", name, strideH, strideW))
	case dilH <= 0 || dilW <= 0:
		panic(fmt.Sprintf("kernel: %s: dilation %d×%d, want >= 1", name, dilH, dilW))
	}
	g := convGeom{
		channels: channels, height: height, width: width, kh: kh, kw: kw,
		padH: padH, padW: padW, strideH: strideH, strideW: strideW, dilH: dilH, dilW: dilW,
		outH: max(0, ConvOutSize(height, kh, padH, strideH, dilH)),
		outW: max(0, ConvOutSize(width, kw, padW, strideW, dilW)),
	}
	if need := channels * height * width; dataLen < need {
		panic(fmt.Sprintf("kernel: %s: len(data) = %d, want >= %d for a %d×%d×%d image", name, dataLen, need, channels, height, width))
	}
	if need := channels * kh * kw * g.outH * g.outW; colLen < need {
		panic(fmt.Sprintf("kernel: %s: len(col) = %d, want >= %d for a %d×%d column matrix", name, colLen, need, channels*kh*kw, g.outH*g.outW))
	}
	return g
}

// span returns the range [lo, hi) of output columns ox whose input column
// ox*strideW+off lies inside the image; the others read the padding.
func (g *convGeom) span(off int) (lo, hi int) {
	if off < 0 {
		lo = (-off + g.strideW - 1) / g.strideW
	}
	if rest := g.width - off; rest > 0 {
		hi = (rest + g.strideW - 1) / g.strideW
	}
	hi = min(hi, g.outW)
	return min(lo, hi), hi
}

// im2col fills col row by row: each (channel, ki, kj) row is outH runs of
// outW entries, and each run is a zero prefix, a copy of one image row
// (contiguous when strideW is 1) and a zero suffix.
func (g *convGeom) im2col(data, col []float32) {
	hw := g.height * g.width
	idx := 0
	for c := 0; c < g.channels; c++ {
		img := data[c*hw : (c+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			for kj := 0; kj < g.kw; kj++ {
				off := kj*g.dilW - g.padW
				lo, hi := g.span(off)
				for oy := 0; oy < g.outH; oy++ {
					dst := col[idx : idx+g.outW]
					idx += g.outW
					y := oy*g.strideH - g.padH + ki*g.dilH
					if y < 0 || y >= g.height {
						clear(dst)
						continue
					}
					row := img[y*g.width : (y+1)*g.width]
					clear(dst[:lo])
					clear(dst[hi:])
					if lo == hi {
						continue
					}
					if g.strideW == 1 {
						copy(dst[lo:hi], row[lo+off:hi+off])
						continue
					}
					x := lo*g.strideW + off
					for ox := lo; ox < hi; ox++ {
						dst[ox] = row[x]
						x += g.strideW
					}
				}
			}
		}
	}
}

// col2im zeroes data and adds col back in the order im2col read it, so
// every image element receives the same sums in the same order as the
// reference; contiguous runs use the vector Add.
func (g *convGeom) col2im(col, data []float32) {
	hw := g.height * g.width
	clear(data[:g.channels*hw])
	add := active.vec.add
	idx := 0
	for c := 0; c < g.channels; c++ {
		img := data[c*hw : (c+1)*hw]
		for ki := 0; ki < g.kh; ki++ {
			for kj := 0; kj < g.kw; kj++ {
				off := kj*g.dilW - g.padW
				lo, hi := g.span(off)
				for oy := 0; oy < g.outH; oy++ {
					src := col[idx : idx+g.outW]
					idx += g.outW
					y := oy*g.strideH - g.padH + ki*g.dilH
					if y < 0 || y >= g.height {
						continue
					}
					row := img[y*g.width : (y+1)*g.width]
					if lo == hi {
						continue
					}
					if g.strideW == 1 {
						d := row[lo+off : hi+off]
						add(d, d, src[lo:hi])
						continue
					}
					x := lo*g.strideW + off
					for ox := lo; ox < hi; ox++ {
						row[x] += src[ox]
						x += g.strideW
					}
				}
			}
		}
	}
}
