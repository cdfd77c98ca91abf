//go:build amd64 || arm64

package rdd

// goroutine identifies the calling goroutine while it runs: the address
// of its runtime descriptor, read in assembly.
func goroutine() uintptr
