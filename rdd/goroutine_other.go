//go:build !amd64 && !arm64

package rdd

import "runtime"

// goroutine identifies the calling goroutine while it runs: its number,
// read from the first line of its stack trace ("goroutine 7 [running]:").
func goroutine() uintptr {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id uintptr
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = 10*id + uintptr(c-'0')
	}
	return id
}
