//go:build ignore

// Instantiating a generic function explicitly, then using it as a value.
package main

import "fmt"

func Zero[T any]() T {
	var z T
	return z
}

func Convert[To, From ~int | ~float64](f From) To { return To(f) }

func Apply[T any](xs []T, f func(T) T) {
	for i := range xs {
		xs[i] = f(xs[i])
	}
}

func double[T ~int | ~float64](x T) T { return x * 2 }

func main() {
	fmt.Printf("%q %v %v\n", Zero[string](), Zero[int](), Zero[*int]() == nil)
	fmt.Println(Convert[int](3.9), Convert[float64, int](2))
	xs := []float64{1, 2.5}
	Apply(xs, double[float64])
	fmt.Println(xs)
	f := double[int]
	fmt.Println(f(21))
}
