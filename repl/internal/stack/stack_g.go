//go:build (amd64 || arm64) && !noasm

package stack

import "unsafe"

// Supported reports whether Used measures the stack on this platform.
const Supported = true

// getg returns the runtime's descriptor of the calling goroutine.
//
//go:noescape
func getg() unsafe.Pointer

// gStack is the head of the runtime's goroutine descriptor: the bounds of
// its stack, [lo, hi). The compiler's function prologue reads the next
// word, stackguard0, at a fixed offset, so these two words stay first.
type gStack struct {
	lo, hi uintptr
}

// stackHi returns the upper bound of the calling goroutine's stack: it
// grows down from there.
func stackHi() uintptr { return (*gStack)(getg()).hi }

//go:nosplit
func addr(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }
