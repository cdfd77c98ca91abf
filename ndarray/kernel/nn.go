package kernel

import (
	"fmt"
	"math"
)

// This file holds the kernels of neural-network layers that are not
// products: copies and sums of blocks of short rows, ReLU, rows of max and
// average pooling, and the element-wise division and square root (local
// response normalisation).

// CopyRows copies a rows×cols block: dst[i*ldd+j] = src[i*lds+j] for
// i < rows and j < cols. It is a copy of many short runs, such as the rows
// of a column matrix that im2col writes, without a call per run.
//
// CopyRows panics if a size is negative, a leading dimension is smaller
// than cols, or a slice is too short for its block.
func CopyRows(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	if checkRows("CopyRows", dst, ldd, src, lds, rows, cols) {
		active.vec.copyRows(dst, ldd, src, lds, rows, cols)
	}
}

// AddRows adds a rows×cols block: dst[i*ldd+j] += src[i*lds+j] for
// i < rows and j < cols (the inner loop of col2im). It panics as CopyRows.
func AddRows(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	if checkRows("AddRows", dst, ldd, src, lds, rows, cols) {
		active.vec.addRows(dst, ldd, src, lds, rows, cols)
	}
}

// checkRows checks the arguments of CopyRows and AddRows and reports
// whether there is anything to do.
func checkRows(name string, dst []float32, ldd int, src []float32, lds int, rows, cols int) bool {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("kernel: %s: negative block size %d×%d", name, rows, cols))
	}
	if rows == 0 || cols == 0 {
		return false
	}
	checkMatrix(name, "dst", rows, cols, len(dst), ldd)
	checkMatrix(name, "src", rows, cols, len(src), lds)
	return true
}

func copyRowsGo(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		copy(dst[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols])
	}
}

func addRowsGo(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		d, s := dst[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols]
		for j, v := range s {
			d[j] += v
		}
	}
}

// Relu computes dst[i] = x[i] if x[i] > 0, else slope*x[i], over len(x)
// elements (len(dst) >= len(x)); dst may be x. It is Caffe's ReLU with
// negative_slope: with slope 0 every input that is not positive gives +0,
// and NaN stays NaN.
func Relu(dst, x []float32, slope float32) {
	checkLen("Relu", "dst", len(dst), len(x))
	active.vec.relu(dst, x, slope)
}

// ReluGrad computes the gradient of Relu: dx[i] = dy[i] if x[i] > 0, else
// slope*dy[i], over len(x) elements (len(dy) and len(dx) >= len(x)); dx
// may be dy.
func ReluGrad(dx, dy, x []float32, slope float32) {
	checkLen("ReluGrad", "dy", len(dy), len(x))
	checkLen("ReluGrad", "dx", len(dx), len(x))
	active.vec.reluGrad(dx, dy, x, slope)
}

func reluGo(dst, x []float32, slope float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		if !(v > 0) {
			v = v*slope + 0 // +0, not −0, for a negative v and slope 0
		}
		dst[i] = v
	}
}

func reluGradGo(dx, dy, x []float32, slope float32) {
	dy, dx = dy[:len(x)], dx[:len(x)]
	for i, v := range x {
		g := dy[i]
		if !(v > 0) {
			g *= slope
		}
		dx[i] = g
	}
}

// MaxPoolRow computes n outputs of one row of a 2-D max pooling. The
// window of output o is rows×kw values of src, rows ld floats apart,
// starting at src[o*stride]: dst[o] is the largest window value, and
// arg[o] its offset in src plus base. When several values are largest the
// first in row-major window order wins, and values not greater than
// −MaxFloat32 (−Inf, NaN) are never chosen: an output whose window holds
// nothing else is −MaxFloat32 with index −1. These are Caffe's rules.
//
// MaxPoolRow panics if n, rows, kw, ld or stride is out of range or a
// slice is too short.
func MaxPoolRow(dst []float32, arg []int32, src []float32, n, rows, ld, kw, stride int, base int32) {
	if !checkPoolRow("MaxPoolRow", len(dst), len(src), n, rows, ld, kw, stride) {
		return
	}
	checkLen("MaxPoolRow", "arg", len(arg), n)
	active.vec.maxPoolRow(dst, arg, src, n, rows, ld, kw, stride, base)
}

// AvePoolRow computes n outputs of one row of a 2-D average pooling:
// dst[o] is the sum of the window of output o (as in MaxPoolRow), added in
// row-major order from zero, divided by div (Caffe's divisor, which
// counts the padding). It panics as MaxPoolRow.
func AvePoolRow(dst []float32, src []float32, n, rows, ld, kw, stride int, div float32) {
	if checkPoolRow("AvePoolRow", len(dst), len(src), n, rows, ld, kw, stride) {
		active.vec.avePoolRow(dst, src, n, rows, ld, kw, stride, div)
	}
}

// MaxPoolRows is MaxPoolRow for count rows of outputs: row r writes n
// outputs at dst[r*dstRow:] and arg[r*dstRow:] from the windows starting
// at src[r*srcRow:], its indexes based at base + r*srcRow. One call pools
// the rows of a plane whose windows lie inside it.
func MaxPoolRows(dst []float32, arg []int32, src []float32, count, n, rows, ld, kw, stride int, base int32, dstRow, srcRow int) {
	if !checkPoolRows("MaxPoolRows", len(dst), len(src), count, n, rows, ld, kw, stride, dstRow, srcRow, int64(base)) {
		return
	}
	checkLen("MaxPoolRows", "arg", len(arg), (count-1)*dstRow+n)
	active.vec.maxPoolRows(dst, arg, src, count, n, rows, ld, kw, stride, base, dstRow, srcRow)
}

// AvePoolRows is AvePoolRow for count rows of outputs, as MaxPoolRows.
func AvePoolRows(dst []float32, src []float32, count, n, rows, ld, kw, stride int, div float32, dstRow, srcRow int) {
	if checkPoolRows("AvePoolRows", len(dst), len(src), count, n, rows, ld, kw, stride, dstRow, srcRow, 0) {
		active.vec.avePoolRows(dst, src, count, n, rows, ld, kw, stride, div, dstRow, srcRow)
	}
}

// checkPoolRows checks the arguments of count pooling rows and reports
// whether there is an output to compute.
func checkPoolRows(name string, ndst, nsrc, count, n, rows, ld, kw, stride, dstRow, srcRow int, base int64) bool {
	if count < 0 || dstRow < 0 || srcRow < 0 {
		panic(fmt.Sprintf("kernel: %s: count %d, dstRow %d, srcRow %d, want >= 0", name, count, dstRow, srcRow))
	}
	if count == 0 || n == 0 {
		checkPoolRow(name, ndst, nsrc, n, rows, ld, kw, stride)
		return false
	}
	if dstRow < n && count > 1 {
		panic(fmt.Sprintf("kernel: %s: dstRow = %d, want >= n = %d", name, dstRow, n))
	}
	last := (count - 1) * srcRow
	if nsrc < last {
		panic(fmt.Sprintf("kernel: %s: len(src) = %d, want >= %d for %d rows %d apart", name, nsrc, last, count, srcRow))
	}
	checkLen(name, "dst", ndst, (count-1)*dstRow+n)
	if base+int64(last)+int64(rows-1)*int64(ld)+int64(n-1)*int64(stride)+int64(kw) > math.MaxInt32 {
		panic(fmt.Sprintf("kernel: %s: a window offset does not fit an int32 index", name))
	}
	return checkPoolRow(name, ndst-(count-1)*dstRow, nsrc-last, n, rows, ld, kw, stride)
}

// maxPoolRowsGo and avePoolRowsGo compute the rows one at a time with a
// row kernel.
func maxPoolRowsGo(row func(dst []float32, arg []int32, src []float32, n, rows, ld, kw, stride int, base int32)) func(dst []float32, arg []int32, src []float32, count, n, rows, ld, kw, stride int, base int32, dstRow, srcRow int) {
	return func(dst []float32, arg []int32, src []float32, count, n, rows, ld, kw, stride int, base int32, dstRow, srcRow int) {
		for r := range count {
			row(dst[r*dstRow:], arg[r*dstRow:], src[r*srcRow:], n, rows, ld, kw, stride, base+int32(r*srcRow))
		}
	}
}

func avePoolRowsGo(row func(dst []float32, src []float32, n, rows, ld, kw, stride int, div float32)) func(dst []float32, src []float32, count, n, rows, ld, kw, stride int, div float32, dstRow, srcRow int) {
	return func(dst []float32, src []float32, count, n, rows, ld, kw, stride int, div float32, dstRow, srcRow int) {
		for r := range count {
			row(dst[r*dstRow:], src[r*srcRow:], n, rows, ld, kw, stride, div)
		}
	}
}

// MaxPoolBackward is the backward pass of a max pooling of one plane (or
// several, their indexes counted from dx[0]): it sets dx to zero and adds
// each output gradient dy[i] to dx[mask[i]], in order, skipping the
// entries of mask outside dx (−1 marks an empty window). With disjoint
// (the pooling windows do not overlap, so no two entries of mask are
// equal) every element of dx gets at most one gradient, and the kernels
// may scatter them at once.
func MaxPoolBackward(dx, dy []float32, mask []int32, disjoint bool) {
	checkLen("MaxPoolBackward", "dy", len(dy), len(mask))
	clear(dx)
	if len(mask) == 0 {
		return
	}
	if disjoint && active.vec.maxPoolScatter != nil {
		active.vec.maxPoolScatter(dx, dy, mask)
		return
	}
	maxPoolBackwardGo(dx, dy, mask)
}

func maxPoolBackwardGo(dx, dy []float32, mask []int32) {
	dy = dy[:len(mask)]
	for i, m := range mask {
		if uint(m) < uint(len(dx)) {
			dx[m] += dy[i]
		}
	}
}

// checkPoolRow checks the arguments of a pooling row and reports whether
// there is an output to compute.
func checkPoolRow(name string, ndst, nsrc, n, rows, ld, kw, stride int) bool {
	switch {
	case n < 0:
		panic(fmt.Sprintf("kernel: %s: negative output count %d", name, n))
	case rows < 1 || kw < 1:
		panic(fmt.Sprintf("kernel: %s: window %d×%d, want at least 1×1", name, rows, kw))
	case stride < 1:
		panic(fmt.Sprintf("kernel: %s: stride %d, want >= 1", name, stride))
	case ld < 0:
		panic(fmt.Sprintf("kernel: %s: negative ld %d", name, ld))
	}
	if n == 0 {
		return false
	}
	checkLen(name, "dst", ndst, n)
	if need := (rows-1)*ld + (n-1)*stride + kw; nsrc < need {
		panic(fmt.Sprintf("kernel: %s: len(src) = %d, want >= %d for %d windows of %d×%d", name, nsrc, need, n, rows, kw))
	}
	if need := int64(rows-1)*int64(ld) + int64(n-1)*int64(stride) + int64(kw); need > math.MaxInt32 {
		panic(fmt.Sprintf("kernel: %s: a window offset of %d does not fit an int32 index", name, need))
	}
	return true
}

func maxPoolRowGo(dst []float32, arg []int32, src []float32, n, rows, ld, kw, stride int, base int32) {
	for o := 0; o < n; o++ {
		best, idx := float32(-math.MaxFloat32), -1
		for i := 0; i < rows; i++ {
			off := i*ld + o*stride
			for j, v := range src[off : off+kw] {
				if v > best {
					best, idx = v, off+j
				}
			}
		}
		dst[o] = best
		if idx >= 0 {
			arg[o] = base + int32(idx)
		} else {
			arg[o] = -1
		}
	}
}

func avePoolRowGo(dst []float32, src []float32, n, rows, ld, kw, stride int, div float32) {
	for o := 0; o < n; o++ {
		var s float32
		for i := 0; i < rows; i++ {
			off := i*ld + o*stride
			for _, v := range src[off : off+kw] {
				s += v
			}
		}
		dst[o] = s / div
	}
}

// Div computes dst[i] = x[i] / y[i] over len(x) elements (len(y) and
// len(dst) >= len(x)). dst may be x or y.
func Div(dst, x, y []float32) {
	checkLen("Div", "y", len(y), len(x))
	checkLen("Div", "dst", len(dst), len(x))
	active.vec.div(dst, x, y)
}

// Sqrt computes dst[i] = sqrt(x[i]), correctly rounded, over len(x)
// elements (len(dst) >= len(x)); dst may be x.
func Sqrt(dst, x []float32) {
	checkLen("Sqrt", "dst", len(dst), len(x))
	active.vec.sqrt(dst, x)
}

func divGo(dst, x, y []float32) {
	y, dst = y[:len(x)], dst[:len(x)]
	for i, v := range x {
		dst[i] = v / y[i]
	}
}

func sqrtGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = float32(math.Sqrt(float64(v)))
	}
}
