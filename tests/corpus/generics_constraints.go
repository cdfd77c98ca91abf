//go:build ignore

// Type sets with ~ accept named types whose underlying type matches.
package main

import "fmt"

type Number interface {
	~int | ~int64 | ~float64
}

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

type Meters float64

func main() {
	fmt.Println(Sum([]int{1, 2, 3}))
	fmt.Println(Sum([]float64{1.5, 2.25}))
	fmt.Println(Sum([]Meters{1, 2.5}))
	fmt.Printf("%T\n", Sum([]Meters{1}))
}
