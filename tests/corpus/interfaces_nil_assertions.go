//go:build ignore

// A comma-ok assertion of a nil interface value gives the zero value and
// false, whatever the type; in a type switch only the nil case matches it.
package main

import (
	"errors"
	"fmt"
)

type timeout interface{ Timeout() bool }

func describe(err error) string {
	if t, ok := err.(timeout); ok && t.Timeout() {
		return "timeout"
	}
	switch err.(type) {
	case nil:
		return "no error"
	case fmt.Stringer:
		return "stringer"
	default:
		return "error: " + err.Error()
	}
}

func main() {
	var x any
	var err error
	s, ok := x.(fmt.Stringer)
	fmt.Println(s, ok)
	e, ok := x.(error)
	fmt.Println(e, ok)
	n, ok := x.(int)
	fmt.Println(n, ok)
	var t, isTimeout = err.(timeout)
	fmt.Println(t, isTimeout)
	fmt.Println(describe(nil))
	fmt.Println(describe(errors.New("disk full")))
}
