//go:build ignore

// Every type has a zero value.
package main

import "fmt"

type point struct {
	X, Y int
	Tag  string
}

func main() {
	var i int
	var f float64
	var b bool
	var s string
	var p *int
	var sl []int
	var m map[string]int
	var fn func()
	var e error
	var pt point
	fmt.Printf("%v %v %v %q\n", i, f, b, s)
	fmt.Println(p == nil, sl == nil, m == nil, fn == nil, e == nil)
	fmt.Printf("%+v %d %d\n", pt, len(sl), len(m))
}
