package ndarray

import (
	"math"

	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// Reductions come in two forms: over all elements (SumAll, MeanAll, MaxAll,
// ArgmaxAll) returning a number, and along one axis (Sum, Mean, Max,
// Argmax) returning an array with that axis removed. Sums accumulate in
// float64.

// SumAll returns the sum of all elements.
func (a *Array) SumAll() float64 {
	var s float64
	if a.IsContiguous() {
		for _, v := range a.Data() {
			s += float64(v)
		}
		return s
	}
	a.each(func(off int) { s += float64(a.data[off]) })
	return s
}

// MeanAll returns the mean of all elements (NaN for an empty array).
func (a *Array) MeanAll() float64 { return a.SumAll() / float64(a.Size()) }

// MaxAll returns the largest element (-Inf for an empty array).
func (a *Array) MaxAll() float32 {
	m := float32(math.Inf(-1))
	a.each(func(off int) {
		if v := a.data[off]; v > m {
			m = v
		}
	})
	return m
}

// MinAll returns the smallest element (+Inf for an empty array).
func (a *Array) MinAll() float32 {
	m := float32(math.Inf(1))
	a.each(func(off int) {
		if v := a.data[off]; v < m {
			m = v
		}
	})
	return m
}

// ArgmaxAll returns the row-major position of the first largest element.
func (a *Array) ArgmaxAll() int {
	best, bi, i := float32(math.Inf(-1)), -1, 0
	a.each(func(off int) {
		if v := a.data[off]; v > best || bi < 0 {
			best, bi = v, i
		}
		i++
	})
	return bi
}

// Norm returns the Euclidean norm of all elements.
func (a *Array) Norm() float64 {
	c := a.Contiguous().Data()
	var s float64
	for _, v := range c {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// Dot returns the sum of the elementwise product of two arrays with the
// same number of elements.
func (a *Array) Dot(b *Array) float64 {
	if a.Size() != b.Size() {
		panic(shapeError("Dot: %v and %v differ in size", a.shape, b.shape))
	}
	x, y := a.Contiguous().Data(), b.Contiguous().Data()
	var s float64
	const chunk = 4096 // float32 partial sums, float64 accumulation
	for i := 0; i < len(x); i += chunk {
		j := min(i+chunk, len(x))
		s += float64(kernel.Dot(x[i:j], y[i:j]))
	}
	return s
}

// Sum returns the sums along axis.
func (a *Array) Sum(axis int) *Array {
	return a.reduceAxis(axis, func(v []float32) float32 {
		var s float64
		for _, x := range v {
			s += float64(x)
		}
		return float32(s)
	})
}

// Mean returns the means along axis.
func (a *Array) Mean(axis int) *Array {
	return a.reduceAxis(axis, func(v []float32) float32 {
		var s float64
		for _, x := range v {
			s += float64(x)
		}
		return float32(s / float64(len(v)))
	})
}

// Max returns the maxima along axis.
func (a *Array) Max(axis int) *Array {
	return a.reduceAxis(axis, func(v []float32) float32 {
		m := float32(math.Inf(-1))
		for _, x := range v {
			if x > m {
				m = x
			}
		}
		return m
	})
}

// Min returns the minima along axis.
func (a *Array) Min(axis int) *Array {
	return a.reduceAxis(axis, func(v []float32) float32 {
		m := float32(math.Inf(1))
		for _, x := range v {
			if x < m {
				m = x
			}
		}
		return m
	})
}

// Argmax returns, along axis, the index of the first largest element, as
// float32 values (Caffe's ArgMax layer convention).
func (a *Array) Argmax(axis int) *Array {
	return a.reduceAxis(axis, func(v []float32) float32 {
		bi := 0
		for i, x := range v {
			if x > v[bi] {
				bi = i
			}
		}
		return float32(bi)
	})
}

// reduceAxis applies f to every 1-D lane along axis.
func (a *Array) reduceAxis(axis int, f func([]float32) float32) *Array {
	ax := a.axis(axis)
	// Move the axis last, then every lane is a contiguous run.
	perm := make([]int, 0, len(a.shape))
	for i := range a.shape {
		if i != ax {
			perm = append(perm, i)
		}
	}
	perm = append(perm, ax)
	t := a.T(perm...).Contiguous()
	d := a.shape[ax]
	outShape := append(cloneInts(a.shape[:ax]), a.shape[ax+1:]...)
	out := New(outShape...)
	src := t.Data()
	for i := range out.data {
		out.data[i] = f(src[i*d : (i+1)*d])
	}
	return out
}

// ApproxEqual reports whether a and b have the same shape and every pair of
// elements differs by at most tol in absolute value or relative to the
// larger magnitude. NaNs are never equal.
func (a *Array) ApproxEqual(b *Array, tol float64) bool {
	return a.MaxDiff(b) <= tol
}

// MaxDiff returns the largest elementwise difference between a and b, each
// measured as |x-y| / max(1, |x|, |y|); +Inf if the shapes differ or an
// element is NaN.
func (a *Array) MaxDiff(b *Array) float64 {
	if !equalInts(a.shape, b.shape) {
		return math.Inf(1)
	}
	x, y := a.Contiguous().Data(), b.Contiguous().Data()
	worst := 0.0
	for i := range x {
		d := relDiff(float64(x[i]), float64(y[i]))
		if d > worst || math.IsNaN(d) {
			if math.IsNaN(d) {
				return math.Inf(1)
			}
			worst = d
		}
	}
	return worst
}

func relDiff(x, y float64) float64 {
	d := math.Abs(x - y)
	m := math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
	return d / m
}
