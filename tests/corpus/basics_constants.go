//go:build ignore

// Typed and untyped constants, iota and constant expressions.
package main

import "fmt"

const Pi = 3.14

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

const (
	_  = iota
	KB = 1 << (10 * iota)
	MB
	GB
)

const (
	a = iota * 10
	b
	c = "str"
	d
	e = iota
)

func main() {
	const World = "world"
	fmt.Println("Hello", World, Pi*2)
	fmt.Println(Sunday, Monday, Tuesday)
	fmt.Println(KB, MB, GB)
	fmt.Println(a, b, c, d, e)
	fmt.Printf("%T\n", Monday)
}
