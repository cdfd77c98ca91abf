// Package stack measures how much of its stack the calling goroutine
// uses, cheaply enough to call on every few interpreted function calls:
// the shell stops runaway recursion with an error before the Go runtime
// ends the process with "fatal error: stack overflow".
package stack

// Used returns how many bytes of its stack the calling goroutine uses,
// and false where that cannot be measured (see Supported).
func Used() (uintptr, bool) {
	if !Supported {
		return 0, false
	}
	var marker byte
	hi := stackHi()
	sp := addr(&marker)
	if hi < sp {
		return 0, false
	}
	return hi - sp, true
}
