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

// MaxPoolPlane max-pools one height×width plane x without padding,
// kh×kw windows strideH×strideW apart clipped to the plane, into outH×outW
// outputs y, and sets mask to the index in x of each output's maximum, by
// MaxPoolRow's rules (Caffe's: the first largest value greater than
// −MaxFloat32 in row-major window order). Every window must start inside
// the plane. The 3×3 windows of stride 2 (the overlapping max pooling of
// CIFAR-10 quick and AlexNet) are computed by one kernel call per plane
// that reduces each input row along its windows' columns once and then
// takes the window rows in order, which chooses the same element;
// other shapes run MaxPoolRow a row of outputs at a time.
//
// MaxPoolPlane panics if a size is out of range, a window starts past
// the plane or a slice is too short.
func MaxPoolPlane(y []float32, mask []int32, x []float32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	maxPoolPlanes("MaxPoolPlane", y, mask, x, 1, height, width, outH, outW, kh, kw, strideH, strideW)
}

// MaxPoolPlanes is MaxPoolPlane for planes consecutive planes: plane p is
// x[p·height·width:], its outputs and mask y and mask from p·outH·outW.
// The 2×2 windows of stride 2 (LeNet's poolings) are computed for all the
// planes by one kernel call, which splits two input rows at a time into
// their even and odd columns and keeps the first largest of the four;
// the 3×3 windows of stride 2 by one call of their plane kernel for all
// the planes; other shapes run MaxPoolPlane plane by plane. It panics as
// MaxPoolPlane, and if planes is negative.
func MaxPoolPlanes(y []float32, mask []int32, x []float32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	maxPoolPlanes("MaxPoolPlanes", y, mask, x, planes, height, width, outH, outW, kh, kw, strideH, strideW)
}

func maxPoolPlanes(name string, y []float32, mask []int32, x []float32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	if planes < 0 {
		panic(fmt.Sprintf("kernel: %s: %d planes, want >= 0", name, planes))
	}
	checkPlane(name, height, width, outH, outW, kh, kw, strideH, strideW)
	if int64(height)*int64(width) > math.MaxInt32 {
		panic(fmt.Sprintf("kernel: %s: a %d×%d plane does not fit int32 indexes", name, height, width))
	}
	hw, o := height*width, outH*outW
	checkLen(name, "x", len(x), planes*hw)
	checkLen(name, "y", len(y), planes*o)
	checkLen(name, "mask", len(mask), planes*o)
	if planes == 0 {
		return
	}
	if kh == 2 && kw == 2 && strideH == 2 && strideW == 2 && active.vec.maxPool2s2 != nil {
		active.vec.maxPool2s2(y, mask, x, planes, height, width, outH, outW)
		return
	}
	if kh == 3 && kw == 3 && strideH == 2 && strideW == 2 && active.vec.maxPool3s2 != nil {
		active.vec.maxPool3s2(y, mask, x, planes, height, width, outH, outW)
		return
	}
	for p := range planes {
		maxPoolPlane(y[p*o:(p+1)*o], mask[p*o:(p+1)*o], x[p*hw:(p+1)*hw], height, width, outH, outW, kh, kw, strideH, strideW)
	}
}

// maxPoolPlane is MaxPoolPlane on checked slices, a row of outputs at a
// time.
func maxPoolPlane(y []float32, mask []int32, x []float32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	// The outputs [0, inner) of a row have their windows' columns inside.
	inner := 0
	if width >= kw {
		inner = min(outW, (width-kw)/strideW+1)
	}
	for ph := range outH {
		h0 := ph * strideH
		rows := min(h0+kh, height) - h0
		yr, mr := y[ph*outW:(ph+1)*outW], mask[ph*outW:(ph+1)*outW]
		if inner > 0 {
			MaxPoolRow(yr, mr, x[h0*width:], inner, rows, width, kw, strideW, int32(h0*width))
		}
		for pw := inner; pw < outW; pw++ {
			w0 := pw * strideW
			c := h0*width + w0
			MaxPoolRow(yr[pw:], mr[pw:], x[c:], 1, rows, width, width-w0, 1, int32(c))
		}
	}
}

// checkPlane checks the arguments of the plane pooling kernels.
func checkPlane(name string, height, width, outH, outW, kh, kw, strideH, strideW int) {
	if height < 1 || width < 1 || outH < 1 || outW < 1 || kh < 1 || kw < 1 || strideH < 1 || strideW < 1 {
		panic(fmt.Sprintf("kernel: %s: plane %d×%d, outputs %d×%d, window %d×%d, stride %d×%d: want all >= 1",
			name, height, width, outH, outW, kh, kw, strideH, strideW))
	}
	if (outH-1)*strideH >= height || (outW-1)*strideW >= width {
		panic(fmt.Sprintf("kernel: %s: %d×%d outputs of stride %d×%d: the last window starts past the %d×%d plane",
			name, outH, outW, strideH, strideW, height, width))
	}
}

// AvePoolPlane average-pools one height×width plane x without padding,
// kh×kw windows strideH×strideW apart clipped to the plane, into outH×outW
// outputs y: each window's sum, added in row-major order from zero,
// divided by its size clipped to the plane (Caffe's divisor without
// padding). Every window must start inside the plane. The 3×3 windows of
// stride 2 (CIFAR-10 quick's pool2 and pool3) are computed by one kernel
// call per plane, whose sums of an input row's window columns start the
// next output row's sums; other shapes run AvePoolRow a row at a time.
// It panics as MaxPoolPlane.
func AvePoolPlane(y, x []float32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	avePoolPlanes("AvePoolPlane", y, x, 1, height, width, outH, outW, kh, kw, strideH, strideW)
}

// AvePoolPlanes is AvePoolPlane for planes consecutive planes: plane p
// is x[p·height·width:], its outputs y[p·outH·outW:]. The 3×3 windows of
// stride 2 are computed for all the planes by one kernel call. It panics
// as AvePoolPlane, and if planes is negative.
func AvePoolPlanes(y, x []float32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	avePoolPlanes("AvePoolPlanes", y, x, planes, height, width, outH, outW, kh, kw, strideH, strideW)
}

func avePoolPlanes(name string, y, x []float32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	if planes < 0 {
		panic(fmt.Sprintf("kernel: %s: %d planes, want >= 0", name, planes))
	}
	checkPlane(name, height, width, outH, outW, kh, kw, strideH, strideW)
	hw, o := height*width, outH*outW
	checkLen(name, "x", len(x), planes*hw)
	checkLen(name, "y", len(y), planes*o)
	if planes == 0 {
		return
	}
	if kh == 3 && kw == 3 && strideH == 2 && strideW == 2 && active.vec.avePool3s2 != nil {
		active.vec.avePool3s2(y, x, planes, height, width, outH, outW)
		return
	}
	for p := range planes {
		avePoolPlane(y[p*o:(p+1)*o], x[p*hw:(p+1)*hw], height, width, outH, outW, kh, kw, strideH, strideW)
	}
}

// avePoolPlane is AvePoolPlane on checked slices, row by row.
func avePoolPlane(y, x []float32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	inner := 0
	if width >= kw {
		inner = min(outW, (width-kw)/strideW+1)
	}
	for ph := range outH {
		h0 := ph * strideH
		rows := min(h0+kh, height) - h0
		yr := y[ph*outW : (ph+1)*outW]
		if inner > 0 {
			AvePoolRow(yr, x[h0*width:], inner, rows, width, kw, strideW, float32(rows*kw))
		}
		for pw := inner; pw < outW; pw++ {
			w0 := pw * strideW
			AvePoolRow(yr[pw:], x[h0*width+w0:], 1, rows, width, width-w0, 1, float32(rows*(width-w0)))
		}
	}
}

// AvePoolBackwardPlane is the backward pass of AvePoolPlane: dx is the
// gradient of the plane from the output gradients dy, in the order of
// additions of Caffe's loop over the outputs grouped by output row: each
// output row's gradients, divided by their windows' sizes, are added along
// their windows' columns from zero in the order of the outputs (a spread
// row), and each element of dx is the sum of the spread rows of the
// output rows whose windows cover it, in their order (the first as it is).
// The 3×3 windows of stride 2 are computed by one kernel call per plane;
// other shapes element by element. It panics as MaxPoolPlane.
func AvePoolBackwardPlane(dx, dy []float32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	avePoolBackwardPlanes("AvePoolBackwardPlane", dx, dy, 1, height, width, outH, outW, kh, kw, strideH, strideW)
}

// AvePoolBackwardPlanes is AvePoolBackwardPlane for planes consecutive
// planes: plane p of dx is dx[p·height·width:], its gradients
// dy[p·outH·outW:]. The 3×3 windows of stride 2 whose windows reach the
// planes' last rows are computed for all the planes by one kernel call.
// It panics as AvePoolBackwardPlane, and if planes is negative.
func AvePoolBackwardPlanes(dx, dy []float32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	avePoolBackwardPlanes("AvePoolBackwardPlanes", dx, dy, planes, height, width, outH, outW, kh, kw, strideH, strideW)
}

func avePoolBackwardPlanes(name string, dx, dy []float32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	if planes < 0 {
		panic(fmt.Sprintf("kernel: %s: %d planes, want >= 0", name, planes))
	}
	checkPlane(name, height, width, outH, outW, kh, kw, strideH, strideW)
	hw, o := height*width, outH*outW
	checkLen(name, "dx", len(dx), planes*hw)
	checkLen(name, "dy", len(dy), planes*o)
	if planes == 0 {
		return
	}
	if kh == 3 && kw == 3 && strideH == 2 && strideW == 2 && active.vec.avePoolBack3s2 != nil && 2*outH+1 >= height {
		active.vec.avePoolBack3s2(dx, dy, planes, height, width, outH, outW)
		return
	}
	for p := range planes {
		avePoolBackwardPlane(dx[p*hw:(p+1)*hw], dy[p*o:(p+1)*o], height, width, outH, outW, kh, kw, strideH, strideW)
	}
}

// avePoolBackwardPlane is AvePoolBackwardPlane on checked slices.
func avePoolBackwardPlane(dx, dy []float32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	dx, dy = dx[:height*width], dy[:outH*outW]
	if kh == 3 && kw == 3 && strideH == 2 && strideW == 2 {
		if active.vec.avePoolBack3s2 != nil {
			active.vec.avePoolBack3s2(dx, dy, 1, height, width, outH, outW)
		} else {
			avePoolBack3s2Go(dx, dy, height, width, outH, outW)
		}
		if r := 2*outH + 1; r < height {
			clear(dx[r*width:])
		}
		return
	}
	// The outputs whose windows cover index i along an axis are
	// [(i−k)/s+1, i/s], within [0, out).
	cover := func(i, k, s, out int) (int, int) {
		lo := 0
		if i >= k {
			lo = (i-k)/s + 1
		}
		return lo, min(out, i/s+1)
	}
	for h := range height {
		ph0, ph1 := cover(h, kh, strideH, outH)
		for w := range width {
			pw0, pw1 := cover(w, kw, strideW, outW)
			var d float32
			for ph := ph0; ph < ph1; ph++ {
				rows := float32(min(ph*strideH+kh, height) - ph*strideH)
				var r float32 // the spread row's element, from zero
				for pw := pw0; pw < pw1; pw++ {
					r += dy[ph*outW+pw] / (rows * float32(min(pw*strideW+kw, width)-pw*strideW))
				}
				if ph == ph0 {
					d = r
				} else {
					d += r
				}
			}
			dx[h*width+w] = d
		}
	}
}

// avePoolBack3s2Go is AvePoolBackwardPlane for 3×3 windows of stride 2
// (rows [0, 2·outH+1) of dx): input row 2·ph+1 is covered by output row ph
// alone, so it holds ph's spread row, and row 2·ph is the spread row of
// ph − 1 (in row 2·ph − 1) plus ph's.
func avePoolBack3s2Go(dx, dy []float32, height, width, outH, outW int) {
	for ph := range outH {
		rows := min(3, height-2*ph)
		// ph's spread row, in row 2·ph+1 or, at the plane's bottom, 2·ph.
		r := 2*ph + min(1, rows-1)
		sp := dx[r*width : (r+1)*width]
		clear(sp)
		for pw, g := range dy[ph*outW : (ph+1)*outW] {
			w0, w1 := 2*pw, min(2*pw+3, width)
			v := g / float32(rows*(w1-w0))
			for c := w0; c < w1; c++ {
				sp[c] += v
			}
		}
		top := dx[2*ph*width : (2*ph+1)*width]
		if ph > 0 {
			Add(top, dx[(2*ph-1)*width:2*ph*width], sp)
		} else if r != 0 {
			copy(top, sp)
		}
		if rows == 3 && ph == outH-1 {
			copy(dx[(2*ph+2)*width:(2*ph+3)*width], sp)
		}
	}
}

// MaxPoolBackwardPlane is MaxPoolBackward for one height×width plane
// max-pooled without padding, kh×kw windows strideH×strideW apart, into
// outH×outW outputs, where every entry of mask is −1 or an element of its
// output's window (as the pooling's forward pass records them): dx is
// cleared and each output gradient dy[i] added to dx[mask[i]], in output
// order. The overlapping 3×3 windows of stride 2 are computed without a
// scatter, each element of dx written once as the sum, in that same
// order, of the gradients of the outputs whose windows cover it and that
// chose it; other shapes run MaxPoolBackward.
//
// MaxPoolBackwardPlane panics if a size is out of range or a slice too
// short.
func MaxPoolBackwardPlane(dx, dy []float32, mask []int32, height, width, outH, outW, kh, kw, strideH, strideW int) {
	maxPoolBackwardPlanes("MaxPoolBackwardPlane", dx, dy, mask, 1, height, width, outH, outW, kh, kw, strideH, strideW, false)
}

// MaxPoolBackwardPlanes is MaxPoolBackwardPlane for planes consecutive
// planes: plane p of dx is dx[p·height·width:], its gradients and mask dy
// and mask from p·outH·outW. The 2×2 windows of stride 2, which do not
// overlap, are computed for all the planes by one kernel call that writes
// each input row once: an element is 0 + the gradient of the output whose
// window holds it when that output chose it, else +0 (what adding the
// gradients to a cleared plane gives); the 3×3 windows of stride 2 whose
// windows reach the planes' last rows by one call of their plane kernel
// for all the planes. Other shapes run MaxPoolBackwardPlane plane by
// plane. It panics as MaxPoolBackwardPlane,
// and if planes is negative.
func MaxPoolBackwardPlanes(dx, dy []float32, mask []int32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	maxPoolBackwardPlanes("MaxPoolBackwardPlanes", dx, dy, mask, planes, height, width, outH, outW, kh, kw, strideH, strideW, false)
}

// MaxPoolBackwardPlanesStream is MaxPoolBackwardPlanes for a gradient
// dx larger than the caches, which the next layer reads back from
// memory anyway: the kernels that can (3×3 windows of stride 2, on rows
// whose width and alignment make whole aligned vectors) write dx by
// non-temporal stores, which skip reading each cache line for ownership
// first. The values are those of MaxPoolBackwardPlanes, bit for bit.
func MaxPoolBackwardPlanesStream(dx, dy []float32, mask []int32, planes, height, width, outH, outW, kh, kw, strideH, strideW int) {
	maxPoolBackwardPlanes("MaxPoolBackwardPlanesStream", dx, dy, mask, planes, height, width, outH, outW, kh, kw, strideH, strideW, true)
}

func maxPoolBackwardPlanes(name string, dx, dy []float32, mask []int32, planes, height, width, outH, outW, kh, kw, strideH, strideW int, stream bool) {
	if planes < 0 {
		panic(fmt.Sprintf("kernel: %s: %d planes, want >= 0", name, planes))
	}
	if height < 1 || width < 1 || outH < 1 || outW < 1 || kh < 1 || kw < 1 || strideH < 1 || strideW < 1 {
		panic(fmt.Sprintf("kernel: %s: plane %d×%d, outputs %d×%d, window %d×%d, stride %d×%d: want all >= 1",
			name, height, width, outH, outW, kh, kw, strideH, strideW))
	}
	hw, o := height*width, outH*outW
	checkLen(name, "dx", len(dx), planes*hw)
	checkLen(name, "dy", len(dy), planes*o)
	checkLen(name, "mask", len(mask), planes*o)
	if planes == 0 {
		return
	}
	inside := (outH-1)*strideH < height && (outW-1)*strideW < width // every window starts in the plane
	if kh == 2 && kw == 2 && strideH == 2 && strideW == 2 && inside && active.vec.maxPoolBack2s2 != nil {
		active.vec.maxPoolBack2s2(dx, dy, mask, planes, height, width, outH, outW)
		return
	}
	is3s2 := kh == 3 && kw == 3 && strideH == 2 && strideW == 2 && inside && active.vec.maxPoolBack3s2 != nil
	if is3s2 && 2*outH+1 >= height {
		// The kernels write every row: all the planes in one call.
		if !stream || active.vec.maxPoolBack3s2NT == nil || !active.vec.maxPoolBack3s2NT(dx, dy, mask, planes, height, width, outH, outW) {
			active.vec.maxPoolBack3s2(dx, dy, mask, planes, height, width, outH, outW)
		}
		return
	}
	for p := range planes {
		d, g, m := dx[p*hw:(p+1)*hw], dy[p*o:(p+1)*o], mask[p*o:(p+1)*o]
		if is3s2 {
			if !stream || active.vec.maxPoolBack3s2NT == nil || !active.vec.maxPoolBack3s2NT(d, g, m, 1, height, width, outH, outW) {
				active.vec.maxPoolBack3s2(d, g, m, 1, height, width, outH, outW)
			}
			if r := 2*outH + 1; r < height {
				clear(d[r*width:])
			}
			continue
		}
		MaxPoolBackward(d, g, m, kh <= strideH && kw <= strideW)
	}
}

// maxPool2s2Go is the 2×2, stride-2 max pooling of planes consecutive
// planes, window by window in row-major order.
func maxPool2s2Go(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int) {
	hw, o := height*width, outH*outW
	for p := range planes {
		xp, yp, mp := x[p*hw:(p+1)*hw], y[p*o:(p+1)*o], mask[p*o:(p+1)*o]
		for ph := range outH {
			h0, h1 := 2*ph, min(2*ph+2, height)
			for pw := range outW {
				w0, w1 := 2*pw, min(2*pw+2, width)
				best, idx := float32(-math.MaxFloat32), int32(-1)
				for h := h0; h < h1; h++ {
					for w := w0; w < w1; w++ {
						if v := xp[h*width+w]; v > best {
							best, idx = v, int32(h*width+w)
						}
					}
				}
				yp[ph*outW+pw], mp[ph*outW+pw] = best, idx
			}
		}
	}
}

// maxPoolBack2s2Go is the gradient of maxPool2s2Go, each element of dx
// written once: 0 + the gradient of the output whose window holds it and
// chose it, else 0.
func maxPoolBack2s2Go(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) {
	hw, o := height*width, outH*outW
	for p := range planes {
		d, g, m := dx[p*hw:(p+1)*hw], dy[p*o:(p+1)*o], mask[p*o:(p+1)*o]
		for h := range height {
			ph := h / 2
			for w := range width {
				pw, v := w/2, float32(0)
				if ph < outH && pw < outW && m[ph*outW+pw] == int32(h*width+w) {
					v += g[ph*outW+pw]
				}
				d[h*width+w] = v
			}
		}
	}
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
