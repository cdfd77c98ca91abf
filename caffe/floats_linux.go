package caffe

import (
	"syscall"
	"unsafe"
)

// hugePageSize is the size of the transparent huge pages that newFloats
// asks Linux for.
const hugePageSize = 2 << 20

// newFloats returns a zero-filled slice of n floats, like make. A slice
// of at least largeFloats values is advised into transparent huge pages
// (madvise MADV_HUGEPAGE over its whole 2 MB pages) before anything
// touches it, so that the kernel maps it in 2 MB pages rather than 4 KB
// ones where the system allows (transparent_hugepage "madvise" or
// "always"): the large weights, histories and activations are then
// streamed through far fewer translations, which on a large fully
// connected layer's row-strided tiles (a page per row of a tile) and in a
// virtual machine (two-level page walks) costs a good part of the pass.
// Where the advice is refused, the slice is an ordinary one.
func newFloats(n int) []float32 {
	s := make([]float32, n)
	if n < largeFloats {
		return s
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (base + hugePageSize - 1) &^ (hugePageSize - 1)
	hi := (base + uintptr(4*n)) &^ (hugePageSize - 1)
	if lo < hi {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*n)[lo-base : hi-base]
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice only
	}
	return s
}
