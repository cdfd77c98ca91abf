//go:build ignore

// A generic function that calls a variadic generic function with its own
// type parameter, inferred, with separate arguments and with a spread slice.
package main

import "fmt"

type Number interface{ ~int | ~float64 }

func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Count[T any](xs ...T) int { return len(xs) }

func Mean[T Number](a, b T) T { return Sum(a, b) / 2 }

func All[T Number](xs []T) (T, int) { return Sum(xs...), Count(xs...) }

func main() {
	fmt.Println(Mean(3, 5), Mean(1.0, 2.0))
	fmt.Println(All([]int{1, 2, 3}))
	fmt.Println(All([]float64{0.5, 0.25}))
	fmt.Println(Sum[int](), Count("a", "b"))
}
