package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// vecImpl is one implementation of the vector primitives. Every function
// works on the first len(x) elements; the exported wrappers check that the
// other slices are long enough.
type vecImpl struct {
	name  string
	axpy  func(alpha float32, x, y []float32)
	axpby func(alpha float32, x []float32, beta float32, y []float32)
	scale func(alpha float32, x []float32)
	add   func(dst, x, y []float32)
	mul   func(dst, x, y []float32)
	dot   func(x, y []float32) float32
	sum   func(x []float32) float32
	// sumRows adds to dst[r] the sum of x[r*n:(r+1)*n], as sum adds
	// it, for r < len(dst).
	sumRows func(dst, x []float32, n int)
	max     func(x []float32) float32
	exp     func(dst, x []float32)
	// sgd is SGDStep on checked slices.
	sgd func(w, g, h []float32, decay, rate, momentum float32)

	// The layer kernels (nn.go).
	copyRows, addRows func(dst []float32, ldd int, src []float32, lds int, rows, cols int)
	relu              func(dst, x []float32, slope float32)
	reluGrad          func(dx, dy, x []float32, slope float32)
	maxPoolRow        func(dst []float32, arg []int32, src []float32, n, rows, ld, kw, stride int, base int32)
	avePoolRow        func(dst []float32, src []float32, n, rows, ld, kw, stride int, div float32)
	maxPoolRows       func(dst []float32, arg []int32, src []float32, count, n, rows, ld, kw, stride int, base int32, dstRow, srcRow int)
	avePoolRows       func(dst []float32, src []float32, count, n, rows, ld, kw, stride int, div float32, dstRow, srcRow int)
	// maxPoolScatter, if not nil, sets dx[mask[i]] = 0 + dy[i] for the
	// entries of mask inside dx, which are distinct.
	maxPoolScatter func(dx, dy []float32, mask []int32)
	// maxPoolBack3s2, if not nil, computes the gradient of a 3×3,
	// stride-2 max pooling without padding of planes consecutive planes
	// (at least 1) as MaxPoolBackwardPlane, the rows of each plane past
	// 2·outH left to the caller.
	maxPoolBack3s2 func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int)
	// maxPoolBack3s2NT, if not nil, is maxPoolBack3s2 by non-temporal
	// stores where dx's alignment and width allow them; it reports
	// whether it ran (false: the caller runs maxPoolBack3s2).
	maxPoolBack3s2NT func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int) bool
	// maxPool3s2, if not nil, computes a 3×3, stride-2 max pooling
	// without padding of planes consecutive planes as MaxPoolPlane.
	maxPool3s2 func(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int)
	// avePool3s2 and avePoolBack3s2, if not nil, compute a 3×3,
	// stride-2 average pooling without padding of planes consecutive
	// planes and its gradient as AvePoolPlane and AvePoolBackwardPlane
	// (the rows of each plane of dx past 2·outH left to the caller).
	avePool3s2     func(y, x []float32, planes, height, width, outH, outW int)
	avePoolBack3s2 func(dx, dy []float32, planes, height, width, outH, outW int)
	// maxPool2s2 and maxPoolBack2s2 compute a 2×2, stride-2 max pooling
	// without padding of planes consecutive planes and its gradient as
	// MaxPoolPlanes and MaxPoolBackwardPlanes.
	maxPool2s2     func(y []float32, mask []int32, x []float32, planes, height, width, outH, outW int)
	maxPoolBack2s2 func(dx, dy []float32, mask []int32, planes, height, width, outH, outW int)
	div            func(dst, x, y []float32)
	sqrt           func(dst, x []float32)
	// im2colRows and col2imRows copy one row of a column matrix from an
	// image and add it back (see im2colRowsGo and col2imRowsGo).
	im2colRows, col2imRows func(img, col []float32, off, ld, rows, cols, lo, hi, stride int)
	// col2imImageRow reports whether the function of that name
	// (impl_amd64.go) runs with this implementation.
	col2imImageRow bool
	// im2colChannel writes the kh·kw rows (ldc floats apart) of the
	// stride-1 column matrix of one channel (im2colChannelAVX512), or is
	// nil.
	im2colChannel func(col, img *float32, ldc, height, width, outH, outW, kh, kw, padH, padW, dilH, dilW int)
	// sgdTo is SGDStepTo on checked slices, fill sets every value of x to
	// v with plain or non-temporal stores (stream.go).
	sgdTo func(w, g, h, d []float32, decay, rate, momentum float32)
	// sgdAhead is SGDStepAhead on checked slices, ahead the byte offset
	// of next from h (nil: sgd).
	sgdAhead func(w, g, h []float32, decay, rate, momentum float32, ahead int)
	fill     func(x []float32, v float32, nonTemporal bool)
	// adam is AdamStep on checked slices, with c1 = 1−b1 and c2 = 1−b2
	// (rules.go).
	adam func(g, m, v []float32, b1, c1, b2, c2, eps, r float32)
	// nesterov is NesterovStep with c = 1+mom, rmsProp RMSPropStep with
	// c = 1−d (rules.go).
	nesterov func(g, h []float32, mom, c, rate float32)
	rmsProp  func(g, h []float32, d, c, delta, rate float32)
	// adaGrad is AdaGradStep, adaDelta AdaDeltaStep with c = 1−rho
	// (rules.go).
	adaGrad  func(g, h []float32, delta, rate float32)
	adaDelta func(g, h, h2 []float32, rho, c, delta, rate float32)
}

var goVec = &vecImpl{
	name: "go", axpy: axpyRef, axpby: axpbyGo, scale: scaleRef, sgd: sgdGo,
	add: addGo, mul: mulGo, dot: dotRef, sum: sumGo, sumRows: sumRowsWith(sumGo), max: maxGo,
	exp:      expGo,
	copyRows: copyRowsGo, addRows: addRowsGo, relu: reluGo, reluGrad: reluGradGo,
	maxPoolRow: maxPoolRowGo, avePoolRow: avePoolRowGo, div: divGo, sqrt: sqrtGo,
	maxPoolRows: maxPoolRowsGo(maxPoolRowGo), avePoolRows: avePoolRowsGo(avePoolRowGo),
	im2colRows: im2colRowsGo, col2imRows: col2imRowsGo,
	maxPool2s2: maxPool2s2Go, maxPoolBack2s2: maxPoolBack2s2Go,
}

func checkLen(name, slice string, n, want int) {
	if n < want {
		panic(fmt.Sprintf("kernel: %s: len(%s) = %d, want >= len(x) = %d", name, slice, n, want))
	}
}

// Axpy computes y += alpha*x over len(x) elements (len(y) >= len(x)).
func Axpy(alpha float32, x, y []float32) {
	checkLen("Axpy", "y", len(y), len(x))
	active.vec.axpy(alpha, x, y)
}

// Axpby computes y = alpha*x + beta*y over len(x) elements
// (len(y) >= len(x)).
func Axpby(alpha float32, x []float32, beta float32, y []float32) {
	checkLen("Axpby", "y", len(y), len(x))
	active.vec.axpby(alpha, x, beta, y)
}

// Scale computes x *= alpha.
func Scale(alpha float32, x []float32) { active.vec.scale(alpha, x) }

// Add computes dst[i] = x[i] + y[i] over len(x) elements (len(y) and
// len(dst) >= len(x)). dst may be x or y.
func Add(dst, x, y []float32) {
	checkLen("Add", "y", len(y), len(x))
	checkLen("Add", "dst", len(dst), len(x))
	active.vec.add(dst, x, y)
}

// Mul computes dst[i] = x[i] * y[i] over len(x) elements (len(y) and
// len(dst) >= len(x)). dst may be x or y.
func Mul(dst, x, y []float32) {
	checkLen("Mul", "y", len(y), len(x))
	checkLen("Mul", "dst", len(dst), len(x))
	active.vec.mul(dst, x, y)
}

// Dot returns the sum of x[i]*y[i] over len(x) elements.
func Dot(x, y []float32) float32 {
	checkLen("Dot", "y", len(y), len(x))
	return active.vec.dot(x, y)
}

// Sum returns the sum of the elements of x (0 for an empty x).
func Sum(x []float32) float32 { return active.vec.sum(x) }

// SumRows adds to each dst[r] the sum of row r of x, rows of n floats one
// after the other: the same values as dst[r] += Sum(x[r*n:(r+1)*n]) row
// by row, without a call per row (a convolution's bias gradient sums
// many short planes: LeNet's conv2, 50 of 64 floats per image).
func SumRows(dst, x []float32, n int) {
	if n < 0 || len(x) < len(dst)*n {
		panic(fmt.Sprintf("kernel: SumRows: len(x) = %d, want >= %d rows of %d", len(x), len(dst), n))
	}
	active.vec.sumRows(dst, x, n)
}

// sumRowsWith is sumRows by calls of sum, row by row.
func sumRowsWith(sum func(x []float32) float32) func(dst, x []float32, n int) {
	return func(dst, x []float32, n int) {
		for r := range dst {
			dst[r] += sum(x[r*n : (r+1)*n])
		}
	}
}

// Max returns the largest element of x. It panics if x is empty; if x
// holds a NaN the result is unspecified.
func Max(x []float32) float32 {
	if len(x) == 0 {
		panic("kernel: Max: empty slice")
	}
	return active.vec.max(x)
}

// Exp computes dst[i] = exp(x[i]) over len(x) elements (len(dst) >=
// len(x)); dst may be x. The vector implementations stay within 2 ulp of
// the exact result where it is a normal float32 (about 1 ulp measured)
// and within the smallest denormal below that; the result overflows to
// +Inf above about 88.72, and NaN stays NaN.
func Exp(dst, x []float32) {
	checkLen("Exp", "dst", len(dst), len(x))
	active.vec.exp(dst, x)
}

func expGo(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = float32(math.Exp(float64(v)))
	}
}

// SGDStep applies one step of SGD with momentum to a parameter w with
// gradient g and momentum history h, as Caffe's SGD solver does in four
// passes over memory, in one: the gradient gets the weight decay,
// g + decay·w (no decay when decay is 0), h becomes rate·that +
// momentum·h, g the step h (Caffe leaves the step in the gradient), and w
// loses it. The results are those of Axpy, Axpby, a copy and Axpy to the
// bit.
func SGDStep(w, g, h []float32, decay, rate, momentum float32) {
	checkLen("SGDStep", "g", len(g), len(w))
	checkLen("SGDStep", "h", len(h), len(w))
	active.vec.sgd(w, g[:len(w)], h[:len(w)], decay, rate, momentum)
}

// SGDStepAhead is SGDStep that also brings next, the history of the
// caller's next step (as long as h), into the first-level cache line by
// line as it reads h: the next piece of a fully connected layer's weights
// that kernel.FCBackward hands its update (the same columns of the next
// row, a row of 4 KB that the hardware prefetchers would only start to
// fetch once its first loads had missed). The results are SGDStep's, bit
// for bit; a next shorter than h, or an implementation without
// prefetches, makes it SGDStep.
func SGDStepAhead(w, g, h, next []float32, decay, rate, momentum float32) {
	checkLen("SGDStepAhead", "g", len(g), len(w))
	checkLen("SGDStepAhead", "h", len(h), len(w))
	v := active.vec
	if len(w) == 0 || len(next) < len(w) || v.sgdAhead == nil {
		v.sgd(w, g[:len(w)], h[:len(w)], decay, rate, momentum)
		return
	}
	ahead := int(uintptr(unsafe.Pointer(&next[0])) - uintptr(unsafe.Pointer(&h[0])))
	v.sgdAhead(w, g[:len(w)], h[:len(w)], decay, rate, momentum, ahead)
}

// sgdGo is SGDStep with the portable primitives' operations.
func sgdGo(w, g, h []float32, decay, rate, momentum float32) {
	g, h = g[:len(w)], h[:len(w)]
	for i, wi := range w {
		d := g[i]
		if decay != 0 {
			d += decay * wi
		}
		hi := rate*d + momentum*h[i]
		h[i], g[i] = hi, hi
		w[i] = wi + -1*hi
	}
}

func axpbyGo(alpha float32, x []float32, beta float32, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = alpha*v + beta*y[i]
	}
}

func addGo(dst, x, y []float32) {
	y, dst = y[:len(x)], dst[:len(x)]
	for i, v := range x {
		dst[i] = v + y[i]
	}
}

func mulGo(dst, x, y []float32) {
	y, dst = y[:len(x)], dst[:len(x)]
	for i, v := range x {
		dst[i] = v * y[i]
	}
}

func sumGo(x []float32) float32 {
	var s float32
	for _, v := range x {
		s += v
	}
	return s
}

func maxGo(x []float32) float32 {
	m := x[0]
	for _, v := range x[1:] {
		if v > m {
			m = v
		}
	}
	return m
}
