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

func newConvGeom(name string, channels, height, width, kh, kw, padH, padW, strideH, strideW, dilH, dilW, dataLen int) convGeom {
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
	return g
}

// checkCol checks that col holds the column matrix with its rows ldc
// floats apart.
func (g *convGeom) checkCol(name string, colLen, ldc int) {
	rows, cols := g.channels*g.kh*g.kw, g.outH*g.outW
	if ldc < cols {
		panic(fmt.Sprintf("kernel: %s: ldc = %d, want >= %d (the column matrix has %d columns)", name, ldc, cols, cols))
	}
	if rows > 0 && cols > 0 {
		if need := (rows-1)*ldc + cols; colLen < need {
			panic(fmt.Sprintf("kernel: %s: len(col) = %d, want >= %d for a %d×%d column matrix with ldc = %d", name, colLen, need, rows, cols, ldc))
		}
	}
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

// rowSpan returns the range [oy0, oy1) of output rows whose input row
// for kernel row ki lies inside the image; the others read the padding.
func (g *convGeom) rowSpan(ki int) (oy0, oy1 int) {
	off := ki*g.dilH - g.padH
	if off < 0 {
		oy0 = (-off + g.strideH - 1) / g.strideH
	}
	if rest := g.height - off; rest > 0 {
		oy1 = (rest + g.strideH - 1) / g.strideH
	}
	oy1 = min(oy1, g.outH)
	return min(oy0, oy1), oy1
}

// im2col fills col row by row, the rows ldc floats apart: each (channel,
// ki, kj) row is outH runs of outW entries, and each run is a zero prefix,
// a copy of part of one image row (contiguous when strideW is 1) and a
// zero suffix. The implementation's im2colRows copies the runs of a row
// in one call; the vector kernels handle their edges under masks.
func (g *convGeom) im2col(data, col []float32, ldc int) {
	hw := g.height * g.width
	if ch := g.active().im2colChannel; ch != nil && g.strideH == 1 && g.strideW == 1 && g.outH > 0 && g.outW > 0 && hw > 0 {
		// A channel per kernel call.
		for c := 0; c < g.channels; c++ {
			ch(&col[c*g.kh*g.kw*ldc], &data[c*hw], ldc, g.height, g.width, g.outH, g.outW, g.kh, g.kw, g.padH, g.padW, g.dilH, g.dilW)
		}
		return
	}
	runs := g.active().im2colRows
	for c := 0; c < g.channels; c++ {
		for ki := 0; ki < g.kh; ki++ {
			oy0, oy1 := g.rowSpan(ki)
			for kj := 0; kj < g.kw; kj++ {
				r := (c*g.kh+ki)*g.kw + kj
				dst := col[r*ldc : r*ldc+g.outH*g.outW]
				off := kj*g.dilW - g.padW
				lo, hi := g.span(off)
				if lo >= hi || oy0 >= oy1 {
					clear(dst)
					continue
				}
				clear(dst[:oy0*g.outW])
				clear(dst[oy1*g.outW:])
				y0 := oy0*g.strideH - g.padH + ki*g.dilH
				runs(data, dst[oy0*g.outW:], c*hw+y0*g.width+off, g.strideH*g.width, oy1-oy0, g.outW, lo, hi, g.strideW)
			}
		}
	}
}

// im2colRowsGo sets col[r*cols+o] to img[off+r*ld+o*stride] for r < rows
// and lo <= o < hi, and to zero for the other o < cols: one row of the
// column matrix, as rows runs of cols entries.
func im2colRowsGo(img, col []float32, off, ld, rows, cols, lo, hi, stride int) {
	for r := 0; r < rows; r++ {
		d := col[r*cols : (r+1)*cols]
		clear(d[:lo])
		clear(d[hi:])
		x := off + r*ld + lo*stride
		if stride == 1 {
			copy(d[lo:hi], img[x:x+hi-lo])
			continue
		}
		for o := lo; o < hi; o++ {
			d[o] = img[x]
			x += stride
		}
	}
}

// col2imRowsGo adds col[r*cols+o] to img[off+r*ld+o*stride] for r < rows
// and lo <= o < hi, the adjoint of im2colRowsGo.
func col2imRowsGo(img, col []float32, off, ld, rows, cols, lo, hi, stride int) {
	for r := 0; r < rows; r++ {
		s := col[r*cols+lo : r*cols+hi]
		x := off + r*ld + lo*stride
		if stride == 1 {
			d := img[x : x+len(s)]
			for i, v := range s {
				d[i] += v
			}
			continue
		}
		for _, v := range s {
			img[x] += v
			x += stride
		}
	}
}

// col2im zeroes data and adds col (rows ldc floats apart) back in the
// order im2col read it, so every image element receives the same sums in
// the same order as the reference, a row of the column matrix per call of
// the implementation's col2imRows (or a whole image row per call of its
// image-row kernel).
func (g *convGeom) col2im(col []float32, ldc int, data []float32) {
	hw := g.height * g.width
	if g.col2imByImageRows(col, ldc, data) {
		return
	}
	clear(data[:g.channels*hw])
	runs := g.active().col2imRows
	for c := 0; c < g.channels; c++ {
		for ki := 0; ki < g.kh; ki++ {
			oy0, oy1 := g.rowSpan(ki)
			for kj := 0; kj < g.kw; kj++ {
				r := (c*g.kh+ki)*g.kw + kj
				src := col[r*ldc : r*ldc+g.outH*g.outW]
				off := kj*g.dilW - g.padW
				lo, hi := g.span(off)
				if lo >= hi || oy0 >= oy1 {
					continue
				}
				y0 := oy0*g.strideH - g.padH + ki*g.dilH
				runs(data, src[oy0*g.outW:], c*hw+y0*g.width+off, g.strideH*g.width, oy1-oy0, g.outW, lo, hi, g.strideW)
			}
		}
	}
}

// col2imTable is the largest table of masks and offsets (vectors of an
// image row times kernel columns) that col2imByImageRows handles.
const col2imTable = 256

// col2imByImageRows computes col2im a row of the image at a time, if the
// implementation has a kernel for it and the convolution has stride 1:
// each vector of an image row sums its contributions, from every kernel
// row and column whose window covers it, in a register and is stored once
// (so that no load waits for the store of an overlapping run). The sums
// are added in the reference's order. It reports whether it did the work.
func (g *convGeom) col2imByImageRows(col []float32, ldc int, data []float32) bool {
	nvec := (g.width + 15) / 16
	if !g.active().col2imImageRow || g.strideH != 1 || g.strideW != 1 || nvec*g.kw > col2imTable || g.outH == 0 || g.outW == 0 {
		return false
	}
	// For vector v and kernel column kj: the image lanes the column matrix
	// row covers, and where lane 0's value would be relative to the run
	// of kernel row ki, column 0 and output row oy.
	var masks [col2imTable]uint16
	var offs [col2imTable]int32
	for v := 0; v < nvec; v++ {
		for kj := 0; kj < g.kw; kj++ {
			shift := kj*g.dilW - g.padW // image column of output column 0
			lo := max(0, shift-16*v)
			hi := min(16, shift+g.outW-16*v, g.width-16*v)
			var m uint16
			if lo < hi {
				m = uint16((1<<hi - 1) &^ (1<<lo - 1))
			}
			masks[v*g.kw+kj] = m
			offs[v*g.kw+kj] = int32(kj*ldc + 16*v - shift)
		}
	}
	hw := g.height * g.width
	kiStep := g.kw*ldc - g.dilH*g.outW
	for c := 0; c < g.channels; c++ {
		for y := 0; y < g.height; y++ {
			// The kernel rows ki whose output row oy = y+padH−ki·dilH
			// exists.
			top := y + g.padH
			kiLo, kiHi := 0, min(g.kh-1, top/g.dilH)
			if n := top - g.outH + 1; n > 0 {
				kiLo = (n + g.dilH - 1) / g.dilH
			}
			count, base := 0, 0
			if kiLo <= kiHi {
				count = kiHi - kiLo + 1
				base = (c*g.kh+kiLo)*g.kw*ldc + (top-kiLo*g.dilH)*g.outW
			}
			col2imImageRow(data[c*hw+y*g.width:c*hw+(y+1)*g.width], col[base:], masks[:nvec*g.kw], offs[:nvec*g.kw], count, kiStep, g.kw)
		}
	}
	return true
}

// active returns the vector implementation in use.
func (g *convGeom) active() *vecImpl { return active.vec }
