//go:build ignore

// A type alias is another name for the same type; a defined type is a new type.
package main

import "fmt"

type Alias = []string
type Defined []string

type Box[T any] struct{ V T }
type IntBox = Box[int]

func main() {
	var a Alias = []string{"x"}
	var plain []string = a
	d := Defined(plain)
	fmt.Printf("%T %T %T\n", a, plain, d)
	b := IntBox{V: 3}
	fmt.Printf("%T %v\n", b, b)
}
