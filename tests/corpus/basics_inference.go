//go:build ignore

// The type of a short declaration comes from its value.
package main

import "fmt"

func main() {
	i := 42
	f := 3.142
	g := 0.867 + 0.5i
	s := "text"
	r := 'x'
	b := i > 10
	fmt.Printf("%T %T %T %T %T %T\n", i, f, g, s, r, b)
	v := i
	w := float32(f) * 2
	fmt.Printf("%T %v %T %.3f\n", v, v, w, w)
}
