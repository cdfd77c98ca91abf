//go:build ignore

package main

import "fmt"

type top struct{ A int }

func main() {
	type point struct{ X, Y int }
	p := point{1, 2}
	fmt.Printf("%T %v %+v\n", p, p, p)
	var a any = p
	fmt.Printf("%T\n", a)
	type celsius float64
	c := celsius(3)
	fmt.Printf("%T %v\n", c, c)
	fmt.Printf("%T\n", []point{p})
	fmt.Printf("%T\n", top{})
}
