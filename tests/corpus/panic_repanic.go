//go:build ignore

// A recovered panic can be inspected and raised again for an outer handler.
package main

import (
	"errors"
	"fmt"
)

var errFatal = errors.New("fatal")

func inner() {
	defer func() {
		r := recover()
		if err, ok := r.(error); ok && errors.Is(err, errFatal) {
			fmt.Println("inner: passing on", err)
			panic(fmt.Errorf("inner: %w", err))
		}
		fmt.Println("inner: swallowed", r)
	}()
	panic(errFatal)
}

func outer() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	inner()
	return nil
}

func main() {
	err := outer()
	fmt.Println("outer:", err, errors.Is(err, errFatal))
}
