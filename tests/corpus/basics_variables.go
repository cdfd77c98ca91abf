//go:build ignore

// var declarations, initializers, short declarations and redeclaration.
package main

import "fmt"

var c, python, java bool

var i, j int = 1, 2

func main() {
	var k int
	s := "short"
	fmt.Println(i, j, k, c, python, java, s)
	a, b := 1, "b"
	a, d := 3, 4.5 // a is assigned, d is new
	fmt.Println(a, b, d)
	var (
		name  = "grouped"
		count uint8
	)
	count--
	fmt.Println(name, count)
}
