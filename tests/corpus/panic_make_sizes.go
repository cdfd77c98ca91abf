//go:build ignore

// make panics with a run-time error when a size is negative or the
// length passes the capacity; a map's size is only a hint.
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
	n, c := -1, 2
	try("negative length", func() { _ = make([]int, n) })
	try("negative capacity", func() { _ = make([]string, 0, n) })
	try("length past capacity", func() { _ = make([]float64, 3, c) })
	try("negative buffer", func() { _ = make(chan int, n) })
	try("negative map hint", func() { m := make(map[string]int, n); m["a"] = 1; fmt.Println(len(m)) })
	try("within range", func() { s := make([]int, c, 2*c); fmt.Println(len(s), cap(s)) })
}
