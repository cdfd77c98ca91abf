package caffe

import (
	"fmt"
	"sync/atomic"

	"github.com/sparknet-go/sparknet/ndarray"
	"github.com/sparknet-go/sparknet/ndarray/kernel"
)

// largeFloats is the size, in values, from which blobs' storage is
// allocated by newFloats into huge pages: 4 MB, two of them.
const largeFloats = 1 << 20

// newFloats returns a zero-filled slice of n floats, like make; one of
// largeFloats values or more is advised into transparent huge pages on
// Linux (kernel.HugePageFloats), so that the large weights, histories and
// activations stream through far fewer page translations.
func newFloats(n int) []float32 {
	if n < largeFloats {
		return make([]float32, n)
	}
	return kernel.HugePageFloats(n)
}

// Blob is Caffe's unit of data: an n-d array of values (data) and the
// gradient of the loss with respect to them (diff), of the same shape.
// Layers read bottom blobs and write top blobs; parameter blobs hold the
// weights a solver updates.
//
// A blob keeps its storage when it is reshaped to the same or a smaller
// count, so nets reshape without allocating in steady state. The values are
// reachable without copying as []float32 (DataSlice, DiffSlice) for the
// kernels, and as ndarray views (Data, Diff) for scripts. Storage of
// largeFloats values or more is asked of Linux in huge pages (newFloats).
//
// A solver may leave a parameter's diff deferred (deferDiff): after an SGD
// step the diff is the update, which is also the new history, so the
// step does not write it and the blob remembers where its values are.
// Every way of reading the diff (DiffSlice, Diff, ShareDiff, a net's
// snapshot with diffs) first copies them into the diff's storage, so what
// is observed is the same, bit for bit. A blob whose diff storage has once
// been handed out (DiffSlice, Diff, ShareDiff), where a caller may keep it
// and read it later, is never deferred again.
type Blob struct {
	shape []int
	count int
	data  []float32 // len(data) is the capacity; the blob uses data[:count]
	diff  []float32

	// diffFrom, when not nil, holds the diff's values (count of them) in
	// place of diff: the history an SGD step left equal to its update.
	diffFrom []float32
	// diffOut records that the diff's storage has been handed out.
	diffOut atomic.Bool
}

// NewBlob returns a zero-filled blob of the given shape.
func NewBlob(shape ...int) *Blob {
	b := &Blob{}
	b.Reshape(shape...)
	return b
}

// MaxBlobCount is the most values a blob may hold; a larger shape (a
// mistyped dimension, say) is an error instead of an allocation that
// would exhaust the machine's memory.
const MaxBlobCount = 1 << 30

// Reshape sets the shape, growing the storage if the new count exceeds it.
// Values are kept only as far as the storage is kept; new storage is zero.
func (b *Blob) Reshape(shape ...int) {
	b.materializeDiff()
	n := 1
	for _, d := range shape {
		if d < 0 {
			// Format a copy so that shape does not escape: callers pass
			// variadic shapes, which then stay on their stack.
			panic(&shapeError{fmt.Sprintf("negative dimension in blob shape %v", append([]int(nil), shape...))})
		}
		if d > 0 && n > MaxBlobCount/d {
			panic(&shapeError{fmt.Sprintf("blob shape %v holds more than %d values (%d GiB of data and as much of gradient)",
				append([]int(nil), shape...), MaxBlobCount, MaxBlobCount*4>>30)})
		}
		n *= d
	}
	b.shape = append(b.shape[:0], shape...)
	if b.shape == nil {
		b.shape = []int{} // a scalar's shape is empty, not unknown
	}
	b.count = n
	if n > len(b.data) {
		b.data = newFloats(n)
		b.diff = newFloats(n)
	}
}

// shapeError is the panic of Reshape given a shape no blob may have: a
// checked limit (ndarray.ErrShape), which the net reports as an error
// naming the layer.
type shapeError struct{ msg string }

func (e *shapeError) Error() string        { return ndarray.ErrShape.Error() + ": caffe: " + e.msg }
func (e *shapeError) Is(target error) bool { return target == ndarray.ErrShape }

// ReshapeLike gives b the shape of o.
func (b *Blob) ReshapeLike(o *Blob) { b.Reshape(o.shape...) }

// Shape returns a copy of the shape.
func (b *Blob) Shape() []int { return append([]int(nil), b.shape...) }

// ShapeString formats the shape as Caffe logs it: "64 1 28 28 (50176)".
func (b *Blob) ShapeString() string {
	s := ""
	for _, d := range b.shape {
		s += fmt.Sprintf("%d ", d)
	}
	return fmt.Sprintf("%s(%d)", s, b.count)
}

// NumAxes returns the number of axes.
func (b *Blob) NumAxes() int { return len(b.shape) }

// Dim returns the extent of an axis; negative axes count from the end.
func (b *Blob) Dim(axis int) int { return b.shape[b.CanonicalAxis(axis)] }

// CanonicalAxis maps a possibly negative axis to 0..NumAxes()-1, panicking
// with an ErrShape error when it is out of range.
func (b *Blob) CanonicalAxis(axis int) int {
	n := len(b.shape)
	if axis < 0 {
		axis += n
	}
	if axis < 0 || axis >= n {
		panic(fmt.Errorf("%w: caffe: axis %d out of range for blob of shape %v", ndarray.ErrShape, axis, b.shape))
	}
	return axis
}

// Count returns the number of values.
func (b *Blob) Count() int { return b.count }

// CountRange returns the product of the extents of axes start..end-1.
func (b *Blob) CountRange(start, end int) int {
	n := 1
	for i := start; i < end; i++ {
		n *= b.shape[i]
	}
	return n
}

// CountFrom returns the product of the extents from axis start on.
func (b *Blob) CountFrom(start int) int { return b.CountRange(start, len(b.shape)) }

// LegacyDim returns the extent of axis i of the legacy 4-D view
// (num, channels, height, width): axes missing on the left count as 1.
func (b *Blob) LegacyDim(i int) int {
	j := len(b.shape) - 4 + i
	if j < 0 {
		return 1
	}
	return b.shape[j]
}

// DataSlice returns the values, sharing storage.
func (b *Blob) DataSlice() []float32 { return b.data[:b.count:b.count] }

// DiffSlice returns the gradient, sharing storage.
func (b *Blob) DiffSlice() []float32 {
	b.materializeDiff()
	if !b.diffOut.Load() {
		b.diffOut.Store(true)
	}
	return b.diff[:b.count:b.count]
}

// grad returns the gradient as DiffSlice does, for a caller that does not
// keep it beyond the current pass (the solver, the net's own passes):
// the blob may still be deferred later.
func (b *Blob) grad() []float32 {
	b.materializeDiff()
	return b.diff[:b.count:b.count]
}

// deferDiff makes the diff's values those of src (count values, which
// the caller keeps equal to what the diff should hold) without copying
// them, unless the diff's storage has been handed out; it reports whether
// it did.
func (b *Blob) deferDiff(src []float32) bool {
	if b.diffOut.Load() || len(src) < b.count {
		return false
	}
	b.diffFrom = src[:b.count:b.count]
	return true
}

// diffDeferred reports whether the diff's values are held elsewhere
// (deferDiff).
func (b *Blob) diffDeferred() bool { return b.diffFrom != nil }

// materializeDiff copies a deferred diff's values into its storage.
func (b *Blob) materializeDiff() {
	if b.diffFrom != nil {
		copy(b.diff[:b.count], b.diffFrom)
		b.diffFrom = nil
	}
}

// Data returns the values as an ndarray view sharing storage.
func (b *Blob) Data() *ndarray.Array { return b.view(b.DataSlice()) }

// Diff returns the gradient as an ndarray view sharing storage.
func (b *Blob) Diff() *ndarray.Array { return b.view(b.DiffSlice()) }

// view returns an array of the blob's shape over s: a scalar blob's has
// no dimensions, as Caffe's (and so its saved shape has none).
func (b *Blob) view(s []float32) *ndarray.Array {
	if len(b.shape) == 0 {
		return ndarray.FromSlice(s).Reshape()
	}
	return ndarray.FromSlice(s, b.shape...)
}

// SetData copies a's values into the blob; a must have the blob's count.
func (b *Blob) SetData(a *ndarray.Array) {
	if a.Size() != b.count {
		panic(fmt.Errorf("%w: caffe: %d values for a blob of shape %v", ndarray.ErrShape, a.Size(), b.shape))
	}
	copy(b.DataSlice(), a.Contiguous().Data())
}

// ShareData makes b use o's value storage (Caffe's ShareData); the counts
// must agree.
func (b *Blob) ShareData(o *Blob) {
	if b.count != o.count {
		panic(fmt.Errorf("%w: caffe: ShareData between counts %d and %d", ndarray.ErrShape, b.count, o.count))
	}
	b.data = o.data
}

// ShareDiff makes b use o's gradient storage; the counts must agree.
func (b *Blob) ShareDiff(o *Blob) {
	if b.count != o.count {
		panic(fmt.Errorf("%w: caffe: ShareDiff between counts %d and %d", ndarray.ErrShape, b.count, o.count))
	}
	o.materializeDiff()
	b.diffFrom = nil // b's own storage is left behind
	b.diffOut.Store(true)
	o.diffOut.Store(true)
	b.diff = o.diff
}

// ZeroDiff sets the gradient to zero.
func (b *Blob) ZeroDiff() {
	b.diffFrom = nil
	clear(b.diff[:b.count])
}

// String describes the blob.
func (b *Blob) String() string { return "Blob(" + b.ShapeString() + ")" }
