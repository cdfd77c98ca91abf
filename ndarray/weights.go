package ndarray

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
)

// WeightCollection is an ordered map from layer name to that layer's
// parameter arrays (for a convolution: weights, then bias), as SparkNet's
// WeightCollection. It is what workers send to the driver and what the
// driver averages and broadcasts.
//
// Arithmetic needs two collections with the same layers, in the same order,
// with arrays of the same shapes; otherwise it panics with an error wrapping
// ErrShape (Compatible reports it as an error first).
type WeightCollection struct {
	names  []string
	arrays map[string][]*Array
}

// NewWeightCollection returns an empty collection.
func NewWeightCollection() *WeightCollection {
	return &WeightCollection{arrays: map[string][]*Array{}}
}

// Set puts the arrays of a layer, appending the layer to the order if it is
// new. The arrays are kept, not copied.
func (w *WeightCollection) Set(layer string, arrays ...*Array) {
	if w.arrays == nil {
		w.arrays = map[string][]*Array{}
	}
	if _, ok := w.arrays[layer]; !ok {
		w.names = append(w.names, layer)
	}
	w.arrays[layer] = arrays
}

// Get returns the arrays of a layer (nil if absent).
func (w *WeightCollection) Get(layer string) []*Array { return w.arrays[layer] }

// Has reports whether the collection holds the layer.
func (w *WeightCollection) Has(layer string) bool { _, ok := w.arrays[layer]; return ok }

// Layers returns the layer names in order.
func (w *WeightCollection) Layers() []string { return append([]string(nil), w.names...) }

// Len returns the number of layers.
func (w *WeightCollection) Len() int { return len(w.names) }

// NumParams returns the total number of values.
func (w *WeightCollection) NumParams() int {
	n := 0
	w.each(func(_ string, _ int, a *Array) { n += a.Size() })
	return n
}

func (w *WeightCollection) each(f func(layer string, i int, a *Array)) {
	for _, name := range w.names {
		for i, a := range w.arrays[name] {
			f(name, i, a)
		}
	}
}

// Compatible returns nil if o has the same layers in the same order with
// arrays of the same shapes, else an error naming the first difference.
func (w *WeightCollection) Compatible(o *WeightCollection) error {
	if len(w.names) != len(o.names) {
		return shapeError("weight collections have %d and %d layers", len(w.names), len(o.names))
	}
	for i, name := range w.names {
		if o.names[i] != name {
			return shapeError("weight collections differ at layer %d: %q vs %q", i, name, o.names[i])
		}
		x, y := w.arrays[name], o.arrays[name]
		if len(x) != len(y) {
			return shapeError("layer %q has %d and %d arrays", name, len(x), len(y))
		}
		for j := range x {
			if !equalInts(x[j].shape, y[j].shape) {
				return shapeError("layer %q array %d has shapes %v and %v", name, j, x[j].shape, y[j].shape)
			}
		}
	}
	return nil
}

func (w *WeightCollection) mustMatch(o *WeightCollection) {
	if err := w.Compatible(o); err != nil {
		panic(err)
	}
}

// Clone returns a deep copy.
func (w *WeightCollection) Clone() *WeightCollection {
	c := NewWeightCollection()
	for _, name := range w.names {
		src := w.arrays[name]
		dst := make([]*Array, len(src))
		for i, a := range src {
			dst[i] = a.Copy()
		}
		c.Set(name, dst...)
	}
	return c
}

// zip calls f on corresponding contiguous storage of w and o.
func (w *WeightCollection) zip(o *WeightCollection, f func(x, y *Array)) {
	w.mustMatch(o)
	for _, name := range w.names {
		x, y := w.arrays[name], o.arrays[name]
		for i := range x {
			f(x[i], y[i])
		}
	}
}

// Add returns w + o as a new collection.
func (w *WeightCollection) Add(o *WeightCollection) *WeightCollection {
	return w.Clone().AddInPlace(o)
}

// Sub returns w - o as a new collection.
func (w *WeightCollection) Sub(o *WeightCollection) *WeightCollection {
	return w.Clone().Axpy(-1, o)
}

// Scale returns alpha*w as a new collection.
func (w *WeightCollection) Scale(alpha float32) *WeightCollection {
	return w.Clone().ScaleInPlace(alpha)
}

// AddInPlace sets w = w + o and returns w.
func (w *WeightCollection) AddInPlace(o *WeightCollection) *WeightCollection { return w.Axpy(1, o) }

// Axpy sets w = w + alpha*o and returns w.
func (w *WeightCollection) Axpy(alpha float32, o *WeightCollection) *WeightCollection {
	w.zip(o, func(x, y *Array) { x.Axpy(alpha, y) })
	return w
}

// ScaleInPlace sets w = alpha*w and returns w.
func (w *WeightCollection) ScaleInPlace(alpha float32) *WeightCollection {
	w.each(func(_ string, _ int, a *Array) { a.ScaleInPlace(alpha) })
	return w
}

// CopyFrom copies the values of o into w's arrays and returns w.
func (w *WeightCollection) CopyFrom(o *WeightCollection) *WeightCollection {
	w.zip(o, func(x, y *Array) { x.CopyFrom(y) })
	return w
}

// Dot returns the sum over all values of w[i]*o[i].
func (w *WeightCollection) Dot(o *WeightCollection) float64 {
	var s float64
	w.zip(o, func(x, y *Array) { s += x.Dot(y) })
	return s
}

// Norm returns the Euclidean norm of all values.
func (w *WeightCollection) Norm() float64 {
	var s float64
	w.each(func(_ string, _ int, a *Array) { n := a.Norm(); s += n * n })
	return math.Sqrt(s)
}

// ApproxEqual reports whether o is compatible with w and every pair of
// values agrees within tol (see Array.ApproxEqual).
func (w *WeightCollection) ApproxEqual(o *WeightCollection, tol float64) bool {
	return w.MaxDiff(o) <= tol
}

// MaxDiff returns the largest relative difference between corresponding
// values, +Inf if the collections are not compatible.
func (w *WeightCollection) MaxDiff(o *WeightCollection) float64 {
	if w.Compatible(o) != nil {
		return math.Inf(1)
	}
	worst := 0.0
	w.zip(o, func(x, y *Array) { worst = math.Max(worst, x.MaxDiff(y)) })
	return worst
}

// Average returns the mean of the collections, summed in the order given
// (so the result is the same bit for bit whatever order they were
// computed in). It panics with ErrShape when they are not compatible, and
// returns nil for no collections.
func Average(ws ...*WeightCollection) *WeightCollection {
	if len(ws) == 0 {
		return nil
	}
	sum := ws[0].Clone()
	for _, w := range ws[1:] {
		sum.AddInPlace(w)
	}
	return sum.ScaleInPlace(1 / float32(len(ws)))
}

// Table returns a text table of layer, array index, shape and norm.
func (w *WeightCollection) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "layer\tblob\tshape\tnorm")
	w.each(func(name string, i int, a *Array) {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%.6g\n", name, i, a.shape, a.Norm())
	})
	tw.Flush()
	return b.String()
}

// String returns a one-line summary.
func (w *WeightCollection) String() string {
	return fmt.Sprintf("WeightCollection{%d layers, %d params}", len(w.names), w.NumParams())
}

// Binary encoding, little-endian:
//
//	magic "SNWC", version byte 1
//	uvarint number of layers
//	per layer: uvarint name length, name bytes, uvarint number of arrays,
//	  per array: uvarint number of dims, uvarint each dim, the float32 values
const wcMagic = "SNWC\x01"

// ErrCorrupt wraps every decoding error.
var ErrCorrupt = errors.New("ndarray: corrupt weight collection encoding")

// EncodedSize returns the length of MarshalBinary's output.
func (w *WeightCollection) EncodedSize() int {
	n := len(wcMagic) + uvarintLen(uint64(len(w.names)))
	for _, name := range w.names {
		arrs := w.arrays[name]
		n += uvarintLen(uint64(len(name))) + len(name) + uvarintLen(uint64(len(arrs)))
		for _, a := range arrs {
			n += uvarintLen(uint64(len(a.shape)))
			for _, d := range a.shape {
				n += uvarintLen(uint64(d))
			}
			n += 4 * a.Size()
		}
	}
	return n
}

// MarshalBinary encodes the collection compactly (for broadcast and MPI).
func (w *WeightCollection) MarshalBinary() ([]byte, error) {
	return w.AppendBinary(make([]byte, 0, w.EncodedSize()))
}

// AppendBinary appends the encoding to buf.
func (w *WeightCollection) AppendBinary(buf []byte) ([]byte, error) {
	buf = append(buf, wcMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(w.names)))
	for _, name := range w.names {
		arrs := w.arrays[name]
		buf = binary.AppendUvarint(buf, uint64(len(name)))
		buf = append(buf, name...)
		buf = binary.AppendUvarint(buf, uint64(len(arrs)))
		for _, a := range arrs {
			buf = binary.AppendUvarint(buf, uint64(len(a.shape)))
			for _, d := range a.shape {
				buf = binary.AppendUvarint(buf, uint64(d))
			}
			for _, v := range a.Contiguous().Data() {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
		}
	}
	return buf, nil
}

// UnmarshalBinary replaces w with the decoded collection. Every count is
// checked against the bytes left before anything is allocated.
func (w *WeightCollection) UnmarshalBinary(data []byte) error {
	d, err := DecodeWeightCollection(data)
	if err != nil {
		return err
	}
	*w = *d
	return nil
}

// DecodeWeightCollection decodes MarshalBinary's output.
func DecodeWeightCollection(data []byte) (*WeightCollection, error) {
	r := decoder{buf: data}
	if len(data) < len(wcMagic) || string(data[:len(wcMagic)]) != wcMagic {
		return nil, fmt.Errorf("%w: bad magic or version at offset 0", ErrCorrupt)
	}
	r.pos = len(wcMagic)
	nl := r.count("layer count", 2)
	w := NewWeightCollection()
	for l := 0; l < nl && r.err == nil; l++ {
		n := r.count("name length", 1)
		name := string(r.bytes(n))
		if r.err == nil && w.Has(name) {
			r.fail("duplicate layer %q", name)
		}
		na := r.count("array count", 1)
		arrs := make([]*Array, 0, na)
		for i := 0; i < na && r.err == nil; i++ {
			nd := r.count("dimension count", 1)
			if nd > 32 {
				r.fail("%d dimensions", nd)
			}
			shape := make([]int, 0, nd)
			size := 1
			for j := 0; j < nd && r.err == nil; j++ {
				dim := r.count("dimension", 0)
				if dim != 0 && size > (len(r.buf)-r.pos)/dim {
					r.fail("shape %v... needs more bytes than remain", append(shape, dim))
				}
				size *= dim
				shape = append(shape, dim)
			}
			if r.err != nil {
				break
			}
			raw := r.bytes(4 * size)
			if r.err != nil {
				break
			}
			vals := make([]float32, size)
			for k := range vals {
				vals[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
			}
			arrs = append(arrs, &Array{data: vals, shape: shape, strides: rowMajorStrides(shape)})
		}
		if r.err == nil {
			w.Set(name, arrs...)
		}
	}
	if r.err == nil && r.pos != len(r.buf) {
		r.fail("%d trailing bytes", len(r.buf)-r.pos)
	}
	if r.err != nil {
		return nil, r.err
	}
	return w, nil
}

type decoder struct {
	buf []byte
	pos int
	err error
}

func (r *decoder) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: at offset %d: %s", ErrCorrupt, r.pos, fmt.Sprintf(format, args...))
	}
}

// count reads a uvarint that counts things of at least minBytes bytes each
// and checks that many could still follow.
func (r *decoder) count(what string, minBytes int) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf[r.pos:])
	if n <= 0 || n != uvarintLen(v) {
		r.fail("bad %s", what)
		return 0
	}
	r.pos += n
	if v > uint64(len(r.buf)) || (minBytes > 0 && v*uint64(minBytes) > uint64(len(r.buf)-r.pos)) {
		r.fail("%s %d exceeds the %d bytes left", what, v, len(r.buf)-r.pos)
		return 0
	}
	return int(v)
}

func (r *decoder) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.buf)-r.pos {
		r.fail("need %d bytes, %d left", n, len(r.buf)-r.pos)
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
