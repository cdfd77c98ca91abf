package kernel

import (
	"syscall"
	"unsafe"
)

// largeSlice returns n zeroed floats advised into transparent huge pages
// before anything touches them, as the caffe package allocates the
// storage of large blobs (weights, history, diff, activations), so that
// the benchmarks of the memory-bound passes stream their arrays through
// the same pages as training does.
func largeSlice(n int) []float32 {
	s := make([]float32, n)
	const huge = 2 << 20
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (base + huge - 1) &^ (huge - 1)
	hi := (base + uintptr(4*n)) &^ (huge - 1)
	if lo < hi {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*n)[lo-base : hi-base]
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
	return s
}
