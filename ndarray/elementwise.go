package ndarray

import "github.com/sparknet-go/sparknet/ndarray/kernel"

// Binary elementwise operations broadcast as numpy does: shapes are aligned
// at their last axes, and an axis of extent 1 (or a missing leading axis)
// stretches to match the other array. The plain forms (Add, Sub, ...)
// return a new array; the InPlace forms write into the receiver, whose
// shape must be the broadcast shape.

// Add returns a + b.
func (a *Array) Add(b *Array) *Array {
	return binaryOp(a, b, func(x, y float32) float32 { return x + y })
}

// Sub returns a - b.
func (a *Array) Sub(b *Array) *Array {
	return binaryOp(a, b, func(x, y float32) float32 { return x - y })
}

// Mul returns the elementwise product a * b.
func (a *Array) Mul(b *Array) *Array {
	return binaryOp(a, b, func(x, y float32) float32 { return x * y })
}

// Div returns the elementwise quotient a / b.
func (a *Array) Div(b *Array) *Array {
	return binaryOp(a, b, func(x, y float32) float32 { return x / y })
}

// AddInPlace sets a = a + b and returns a.
func (a *Array) AddInPlace(b *Array) *Array {
	if sameLayout(a, b) {
		kernel.Axpy(1, b.Data(), a.Data())
		return a
	}
	return binaryInto(a, a, b, func(x, y float32) float32 { return x + y })
}

// SubInPlace sets a = a - b and returns a.
func (a *Array) SubInPlace(b *Array) *Array {
	if sameLayout(a, b) {
		kernel.Axpy(-1, b.Data(), a.Data())
		return a
	}
	return binaryInto(a, a, b, func(x, y float32) float32 { return x - y })
}

// MulInPlace sets a = a * b elementwise and returns a.
func (a *Array) MulInPlace(b *Array) *Array {
	return binaryInto(a, a, b, func(x, y float32) float32 { return x * y })
}

// DivInPlace sets a = a / b elementwise and returns a.
func (a *Array) DivInPlace(b *Array) *Array {
	return binaryInto(a, a, b, func(x, y float32) float32 { return x / y })
}

// Scale returns alpha * a.
func (a *Array) Scale(alpha float32) *Array {
	c := a.Copy()
	kernel.Scale(alpha, c.data)
	return c
}

// ScaleInPlace sets a = alpha * a and returns a.
func (a *Array) ScaleInPlace(alpha float32) *Array {
	if a.IsContiguous() {
		kernel.Scale(alpha, a.Data())
		return a
	}
	a.each(func(off int) { a.data[off] *= alpha })
	return a
}

// AddScalar returns a + v.
func (a *Array) AddScalar(v float32) *Array {
	return a.Apply(func(x float32) float32 { return x + v })
}

// Axpy sets a = a + alpha*x (x broadcast to a's shape) and returns a.
func (a *Array) Axpy(alpha float32, x *Array) *Array {
	if sameLayout(a, x) {
		kernel.Axpy(alpha, x.Data(), a.Data())
		return a
	}
	return binaryInto(a, a, x, func(p, q float32) float32 { return p + alpha*q })
}

// Apply returns a new array with f applied to every element.
func (a *Array) Apply(f func(float32) float32) *Array {
	c := a.Copy()
	for i, v := range c.data {
		c.data[i] = f(v)
	}
	return c
}

// ApplyInPlace applies f to every element of a and returns a.
func (a *Array) ApplyInPlace(f func(float32) float32) *Array {
	a.each(func(off int) { a.data[off] = f(a.data[off]) })
	return a
}

// Fill sets every element to v and returns a.
func (a *Array) Fill(v float32) *Array {
	a.each(func(off int) { a.data[off] = v })
	return a
}

func sameLayout(a, b *Array) bool {
	return a.IsContiguous() && b.IsContiguous() && equalInts(a.shape, b.shape)
}

// BroadcastShape returns the shape two arrays broadcast to, or an error
// wrapping ErrShape.
func BroadcastShape(s, t []int) ([]int, error) {
	n := max(len(s), len(t))
	out := make([]int, n)
	for i := 0; i < n; i++ {
		x, y := 1, 1
		if j := len(s) - n + i; j >= 0 {
			x = s[j]
		}
		if j := len(t) - n + i; j >= 0 {
			y = t[j]
		}
		switch {
		case x == y, y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, shapeError("shapes %v and %v do not broadcast (axis %d: %d vs %d)", s, t, i, x, y)
		}
	}
	return out, nil
}

// broadcastTo returns a view of a with the given shape, using stride 0 for
// stretched axes.
func (a *Array) broadcastTo(shape []int) *Array {
	n := len(shape)
	v := &Array{data: a.data, offset: a.offset, shape: cloneInts(shape), strides: make([]int, n)}
	for i := 0; i < n; i++ {
		j := len(a.shape) - n + i
		if j < 0 {
			continue
		}
		if a.shape[j] == shape[i] {
			v.strides[i] = a.strides[j]
		} else if a.shape[j] != 1 {
			panic(shapeError("cannot broadcast %v to %v", a.shape, shape))
		}
	}
	return v
}

func binaryOp(a, b *Array, f func(x, y float32) float32) *Array {
	shape, err := BroadcastShape(a.shape, b.shape)
	if err != nil {
		panic(err)
	}
	return binaryInto(New(shape...), a, b, f)
}

func binaryInto(dst, a, b *Array, f func(x, y float32) float32) *Array {
	shape, err := BroadcastShape(a.shape, b.shape)
	if err != nil {
		panic(err)
	}
	if !equalInts(shape, dst.shape) {
		panic(shapeError("result of shape %v does not fit in %v", shape, dst.shape))
	}
	if sameLayout(a, b) && dst.IsContiguous() {
		x, y, d := a.Data(), b.Data(), dst.Data()
		for i := range d {
			d[i] = f(x[i], y[i])
		}
		return dst
	}
	av, bv := a.broadcastTo(shape), b.broadcastTo(shape)
	// Gather both operands first: dst may alias a or b.
	xs := make([]float32, dst.Size())
	ys := make([]float32, dst.Size())
	av.copyInto(xs)
	bv.copyInto(ys)
	i := 0
	dst.each(func(off int) { dst.data[off] = f(xs[i], ys[i]); i++ })
	return dst
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
