//go:build ignore

package main

import (
	"fmt"
	"io"
)

func try(name string, f func()) {
	defer func() {
		r := recover()
		err, isErr := r.(error)
		fmt.Println(name, isErr, err)
	}()
	f()
}

func main() {
	var e error
	var s fmt.Stringer
	var w io.Writer
	try("error", func() { _ = e.Error() })
	try("stringer", func() { fmt.Println(s.String()) })
	try("writer", func() { w.Write([]byte("x")) })
	fmt.Println(e == nil, s == nil, w == nil)
}
