package kernel

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of the transparent huge pages HugePageFloats asks
// Linux for.
const hugePage = 2 << 20

// HugePageFloats returns a zero-filled slice of n floats, like make; the
// whole 2 MB pages inside a slice of 2 MB or more are advised into
// transparent huge pages (madvise MADV_HUGEPAGE) before anything touches
// them, so that the kernel maps them in 2 MB pages where the system
// allows it (transparent_hugepage "madvise" or "always"). Passes that
// stride through large arrays (a fully connected layer's row tiles, a
// page per row; the direct convolution's interleaved blocks, where a pass
// over one channel stores or loads a vector every 6 to 25 KB) otherwise
// pay a page translation per touch (two-level in a virtual machine); with
// 2 MB pages one translation serves hundreds. Where the advice is
// refused, the slice is an ordinary one.
func HugePageFloats(n int) []float32 {
	s := make([]float32, n)
	if 4*n < hugePage {
		return s
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (base + hugePage - 1) &^ (hugePage - 1)
	hi := (base + uintptr(4*n)) &^ (hugePage - 1)
	if lo < hi {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*n)[lo-base : hi-base]
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice only
	}
	return s
}
