package ndarray

import (
	"fmt"

	"gorgonia.org/tensor"
)

// Array is an n-dimensional array of float32 values.
//
// An Array is a view: a shape and strides over a backing []float32 that may
// be shared with other arrays (slices, reshapes and transposes of it), with
// Caffe blobs and with the compute kernels. A freshly made array is
// contiguous and row-major (the last axis varies fastest).
//
// The zero value is an empty array of shape [0].
type Array struct {
	data    []float32 // backing storage; the view starts at data[offset]
	offset  int
	shape   []int
	strides []int
}

// New returns a zero-filled contiguous array of the given shape. A call with
// no dimensions makes a scalar (shape [], one element).
func New(shape ...int) *Array {
	n := checkShape(shape)
	return &Array{data: make([]float32, n), shape: cloneInts(shape), strides: rowMajorStrides(shape)}
}

// FromSlice returns a contiguous array of the given shape whose storage is
// data itself (no copy). With no shape the array is one-dimensional.
// It panics with ErrShape if len(data) is not the product of the shape.
func FromSlice(data []float32, shape ...int) *Array {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	n := checkShape(shape)
	if n != len(data) {
		panic(shapeError("FromSlice: %d values do not fill shape %v (%d elements)", len(data), shape, n))
	}
	return &Array{data: data, shape: cloneInts(shape), strides: rowMajorStrides(shape)}
}

// FromValues copies vals into a new one-dimensional array; a convenient
// literal form for scripts: ndarray.FromValues(1, 2, 3).Reshape(3, 1).
func FromValues(vals ...float32) *Array {
	return FromSlice(append([]float32(nil), vals...))
}

// FromFloat64s copies vals, converted to float32, into a new array of the
// given shape (one-dimensional when no shape is given).
func FromFloat64s(vals []float64, shape ...int) *Array {
	d := make([]float32, len(vals))
	for i, v := range vals {
		d[i] = float32(v)
	}
	return FromSlice(d, shape...)
}

// Zeros is New.
func Zeros(shape ...int) *Array { return New(shape...) }

// Ones returns a contiguous array of the given shape filled with 1.
func Ones(shape ...int) *Array { return Full(1, shape...) }

// Full returns a contiguous array of the given shape filled with v.
func Full(v float32, shape ...int) *Array {
	a := New(shape...)
	for i := range a.data {
		a.data[i] = v
	}
	return a
}

// Arange returns the one-dimensional array start, start+step, ... below stop.
func Arange(start, stop, step float32) *Array {
	if step == 0 {
		panic(shapeError("Arange: step is 0"))
	}
	var d []float32
	for v := start; (step > 0 && v < stop) || (step < 0 && v > stop); v += step {
		d = append(d, v)
	}
	return FromSlice(d, len(d))
}

// FromDense returns an array sharing the backing storage of a float32
// gorgonia tensor. Views of a tensor are copied to a contiguous array.
func FromDense(t *tensor.Dense) (*Array, error) {
	if t.Dtype() != tensor.Float32 {
		return nil, fmt.Errorf("ndarray: FromDense: dtype %v, want float32", t.Dtype())
	}
	if t.IsView() || !t.DataOrder().IsRowMajor() {
		t = t.Materialize().(*tensor.Dense)
	}
	shape := []int(t.Shape())
	if t.IsScalar() {
		shape = nil
	}
	d := t.Data()
	switch v := d.(type) {
	case []float32:
		return FromSlice(v, shape...), nil
	case float32:
		a := New(shape...)
		a.data[0] = v
		return a, nil
	}
	return nil, fmt.Errorf("ndarray: FromDense: unexpected backing %T", d)
}

// Dense returns the array as a gorgonia tensor. A contiguous array shares its
// storage with the tensor; a strided view is copied first.
func (a *Array) Dense() *tensor.Dense {
	c := a.Contiguous()
	shape := c.shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(c.data[c.offset:c.offset+c.Size()]))
}

// Shape returns a copy of the array's dimensions.
func (a *Array) Shape() []int { return cloneInts(a.shape) }

// Strides returns a copy of the array's strides, in elements.
func (a *Array) Strides() []int { return cloneInts(a.strides) }

// Dims returns the number of dimensions.
func (a *Array) Dims() int { return len(a.shape) }

// Dim returns the extent of axis i; negative i counts from the end.
func (a *Array) Dim(i int) int { return a.shape[a.axis(i)] }

// Size returns the number of elements.
func (a *Array) Size() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	return n
}

// IsContiguous reports whether the elements lie row-major without gaps, so
// that Data returns exactly them.
func (a *Array) IsContiguous() bool {
	s := 1
	for i := len(a.shape) - 1; i >= 0; i-- {
		if a.shape[i] != 1 && a.strides[i] != s {
			return false
		}
		s *= a.shape[i]
	}
	return true
}

// Data returns the elements of a contiguous array as a slice that shares its
// storage: writes through it change the array. It panics with ErrShape for
// a non-contiguous view; call Contiguous first.
func (a *Array) Data() []float32 {
	if !a.IsContiguous() {
		panic(shapeError("Data: array of shape %v with strides %v is not contiguous; use Contiguous()", a.shape, a.strides))
	}
	n := a.Size()
	return a.data[a.offset : a.offset+n : a.offset+n]
}

// Contiguous returns the array itself if it is contiguous, else a
// contiguous copy.
func (a *Array) Contiguous() *Array {
	if a.IsContiguous() {
		return a
	}
	return a.Copy()
}

// At returns the element at the given index, one value per axis; negative
// indices count from the end.
func (a *Array) At(index ...int) float32 { return a.data[a.flat(index)] }

// Set stores v at the given index.
func (a *Array) Set(v float32, index ...int) { a.data[a.flat(index)] = v }

// Item returns the only element of a one-element array.
func (a *Array) Item() float32 {
	if a.Size() != 1 {
		panic(shapeError("Item: array of shape %v has %d elements, want 1", a.shape, a.Size()))
	}
	return a.data[a.offset]
}

func (a *Array) flat(index []int) int {
	if len(index) != len(a.shape) {
		panic(shapeError("index %v has %d values for an array of %d dimensions (shape %v)", index, len(index), len(a.shape), a.shape))
	}
	off := a.offset
	for i, ix := range index {
		d := a.shape[i]
		if ix < 0 {
			ix += d
		}
		if ix < 0 || ix >= d {
			panic(shapeError("index %v out of range for shape %v", index, a.shape))
		}
		off += ix * a.strides[i]
	}
	return off
}

func (a *Array) axis(i int) int {
	n := len(a.shape)
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		panic(shapeError("axis %d out of range for %d dimensions", i, n))
	}
	return i
}

// MaxSize is the most elements an array may hold (8 GiB of float32): a
// larger shape, most likely a mistyped dimension, is a shape error rather
// than an allocation that would exhaust the machine's memory.
const MaxSize = 1 << 31

func checkShape(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(shapeError("negative dimension in shape %v", shape))
		}
		if d != 0 && n > MaxSize/d {
			panic(shapeError("shape %v is too large: more than %d elements", shape, MaxSize))
		}
		n *= d
	}
	return n
}

func rowMajorStrides(shape []int) []int {
	s := make([]int, len(shape))
	st := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = st
		st *= shape[i]
	}
	return s
}

func cloneInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return append([]int{}, s...)
}
