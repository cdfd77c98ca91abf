//go:build ignore

// Run-time errors are panics with runtime.Error values and Go's messages.
package main

import (
	"fmt"
	"runtime"
)

func try(name string, f func()) {
	defer func() {
		r := recover()
		_, isRuntime := r.(runtime.Error)
		fmt.Printf("%s: %v (runtime error: %v)\n", name, r, isRuntime)
	}()
	f()
}

func main() {
	var s []int
	var m map[string]int
	var p *struct{ X int }
	zero := 0
	try("index", func() { _ = s[3] })
	try("nil map", func() { m["a"] = 1 })
	try("nil pointer", func() { p.X = 1 })
	try("divide", func() { fmt.Println(1 / zero) })
	try("slice bounds", func() { a := []int{1, 2}; i := 3; _ = a[1:i] })
	try("conversion", func() { var x any = "s"; _ = x.(int) })
}
