//go:build ignore

// Ranges over pointers to arrays: the values read as they are at each
// iteration, a body that writes through the pointer, a range assigning
// to variables declared before it, ranges with no value (which do not
// evaluate the pointer, so run over a nil one), and a value range over a
// nil pointer, which panics.
package main

import "fmt"

type Vec [3]float64

func (v *Vec) Scale(f float64) {
	for i, x := range v {
		v[i] = x * f
	}
}

func main() {
	a := Vec{1, 2, 3}
	a.Scale(2)
	pa := &a
	for i, v := range pa {
		pa[2] = 10
		fmt.Print(i, ":", v, " ")
	}
	fmt.Println(a)

	var last float64
	var at int
	for at, last = range pa {
	}
	fmt.Println(at, last)

	var fs []func() int
	for i := range pa {
		fs = append(fs, func() int { return i * 10 })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()

	var none *[4]int
	n := 0
	for range none {
		n++
	}
	for i := range none {
		n += i
	}
	fmt.Println(n)

	defer func() { fmt.Println("recovered:", recover()) }()
	for _, v := range none {
		fmt.Println(v)
	}
}
