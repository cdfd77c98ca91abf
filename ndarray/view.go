package ndarray

// Views share storage with the array they come from: writing through one
// changes the other. Copy makes an independent array.

// Copy returns a contiguous copy of the array.
func (a *Array) Copy() *Array {
	c := New(a.shape...)
	a.copyInto(c.data)
	return c
}

// CopyFrom copies the elements of b into a; the shapes must have the same
// number of elements (b is read in row-major order).
func (a *Array) CopyFrom(b *Array) *Array {
	if a.Size() != b.Size() {
		panic(shapeError("CopyFrom: %v into %v: element counts differ", b.shape, a.shape))
	}
	if a.IsContiguous() {
		b.copyInto(a.Data())
		return a
	}
	tmp := make([]float32, b.Size())
	b.copyInto(tmp)
	i := 0
	a.each(func(off int) { a.data[off] = tmp[i]; i++ })
	return a
}

// copyInto writes the elements in row-major order into dst.
func (a *Array) copyInto(dst []float32) {
	if a.IsContiguous() {
		copy(dst, a.data[a.offset:a.offset+a.Size()])
		return
	}
	i := 0
	a.each(func(off int) { dst[i] = a.data[off]; i++ })
}

// each calls f with the storage offset of every element in row-major order.
func (a *Array) each(f func(off int)) {
	n := a.Size()
	if n == 0 {
		return
	}
	nd := len(a.shape)
	if nd == 0 {
		f(a.offset)
		return
	}
	idx := make([]int, nd)
	last := nd - 1
	inner, istride := a.shape[last], a.strides[last]
	off := a.offset
	for {
		o := off
		for j := 0; j < inner; j++ {
			f(o)
			o += istride
		}
		// advance the outer index
		ax := last - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			off += a.strides[ax]
			if idx[ax] < a.shape[ax] {
				break
			}
			off -= idx[ax] * a.strides[ax]
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// Slice returns the view of elements start <= i < end along axis. Negative
// start and end count from the end of the axis.
func (a *Array) Slice(axis, start, end int) *Array {
	ax := a.axis(axis)
	d := a.shape[ax]
	if start < 0 {
		start += d
	}
	if end < 0 {
		end += d
	}
	if start < 0 || end > d || start > end {
		panic(shapeError("Slice: [%d:%d] out of range for axis %d of extent %d", start, end, ax, d))
	}
	v := a.view()
	v.offset += start * a.strides[ax]
	v.shape[ax] = end - start
	return v
}

// Index returns the view at position i of axis, with that axis removed:
// for a matrix m, m.Index(0, 2) is its third row.
func (a *Array) Index(axis, i int) *Array {
	ax := a.axis(axis)
	d := a.shape[ax]
	if i < 0 {
		i += d
	}
	if i < 0 || i >= d {
		panic(shapeError("Index: %d out of range for axis %d of extent %d", i, ax, d))
	}
	v := a.view()
	v.offset += i * a.strides[ax]
	v.shape = append(v.shape[:ax], v.shape[ax+1:]...)
	v.strides = append(v.strides[:ax], v.strides[ax+1:]...)
	return v
}

// Reshape returns an array of the new shape with the same elements in
// row-major order. One dimension may be -1, inferred from the others. A
// contiguous array is reshaped as a view; a strided one is copied first.
func (a *Array) Reshape(shape ...int) *Array {
	shape = cloneInts(shape)
	n := a.Size()
	infer := -1
	known := 1
	for i, d := range shape {
		if d == -1 {
			if infer >= 0 {
				panic(shapeError("Reshape: more than one -1 in %v", shape))
			}
			infer = i
			continue
		}
		if d < 0 {
			panic(shapeError("Reshape: negative dimension in %v", shape))
		}
		known *= d
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			panic(shapeError("Reshape: cannot infer -1 in %v for %d elements", shape, n))
		}
		shape[infer] = n / known
		known = n
	}
	if known != n {
		panic(shapeError("Reshape: %v has %d elements, shape %v needs %d", a.shape, n, shape, known))
	}
	c := a.Contiguous()
	return &Array{data: c.data, offset: c.offset, shape: shape, strides: rowMajorStrides(shape)}
}

// Flatten returns the array as one dimension (a view when contiguous).
func (a *Array) Flatten() *Array { return a.Reshape(a.Size()) }

// T returns a transposed view. With no arguments the axes are reversed
// (a matrix's transpose); otherwise axes gives the new order of the old
// axes, as numpy's transpose.
func (a *Array) T(axes ...int) *Array {
	nd := len(a.shape)
	if len(axes) == 0 {
		axes = make([]int, nd)
		for i := range axes {
			axes[i] = nd - 1 - i
		}
	}
	if len(axes) != nd {
		panic(shapeError("T: %d axes given for %d dimensions", len(axes), nd))
	}
	seen := make([]bool, nd)
	v := &Array{data: a.data, offset: a.offset, shape: make([]int, nd), strides: make([]int, nd)}
	for i, ax := range axes {
		ax = a.axis(ax)
		if seen[ax] {
			panic(shapeError("T: axis %d repeated in %v", ax, axes))
		}
		seen[ax] = true
		v.shape[i] = a.shape[ax]
		v.strides[i] = a.strides[ax]
	}
	return v
}

// Squeeze returns a view without the axes of extent 1.
func (a *Array) Squeeze() *Array {
	v := &Array{data: a.data, offset: a.offset, shape: []int{}, strides: []int{}}
	for i, d := range a.shape {
		if d != 1 {
			v.shape = append(v.shape, d)
			v.strides = append(v.strides, a.strides[i])
		}
	}
	return v
}

// ExpandDims returns a view with a new axis of extent 1 at position axis.
func (a *Array) ExpandDims(axis int) *Array {
	nd := len(a.shape)
	if axis < 0 {
		axis += nd + 1
	}
	if axis < 0 || axis > nd {
		panic(shapeError("ExpandDims: axis %d out of range for %d dimensions", axis, nd))
	}
	v := a.view()
	st := 1
	if axis < nd {
		st = a.strides[axis] * a.shape[axis]
	}
	v.shape = append(v.shape[:axis], append([]int{1}, v.shape[axis:]...)...)
	v.strides = append(v.strides[:axis], append([]int{st}, v.strides[axis:]...)...)
	return v
}

func (a *Array) view() *Array {
	return &Array{data: a.data, offset: a.offset, shape: cloneInts(a.shape), strides: cloneInts(a.strides)}
}
