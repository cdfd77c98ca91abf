// Package sync adds to the compiled sync package its generic functions
// (and OnceFunc beside them), which the interpreter cannot take from
// compiled code.
//
// If f panics, the returned function panics on its first call, as Go's
// does; later calls return the zero values instead of panicking again.
package sync

import "sync"

// OnceFunc returns a function that calls f only the first time it is
// called.
func OnceFunc(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

// OnceValue returns a function that calls f only the first time it is
// called, and returns f's result every time.
func OnceValue[T any](f func() T) func() T {
	var once sync.Once
	var v T
	return func() T {
		once.Do(func() { v = f() })
		return v
	}
}

// OnceValues is OnceValue for a function with two results.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var once sync.Once
	var v1 T1
	var v2 T2
	return func() (T1, T2) {
		once.Do(func() { v1, v2 = f() })
		return v1, v2
	}
}
