//go:build ignore

// A slice spread into a variadic parameter shares its array.
package main

import "fmt"

func zeroFirst(xs ...int) {
	if len(xs) > 0 {
		xs[0] = 0
	}
}

func sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func main() {
	s := []int{5, 6, 7}
	zeroFirst(s...)
	fmt.Println(s)
	zeroFirst(9, 9)
	fmt.Println(sum(), sum(1, 2), sum(s...))
}
