//go:build ignore

// switch without a condition is a clean if-else chain; cases are tried in order.
package main

import "fmt"

func classify(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	case n%2 == 0:
		return "even"
	default:
		return "odd"
	}
}

func main() {
	for _, n := range []int{-3, 0, 4, 7} {
		fmt.Println(n, classify(n))
	}
	hour := 15
	switch {
	case hour < 12:
		fmt.Println("morning")
	case hour < 17:
		fmt.Println("afternoon")
	default:
		fmt.Println("evening")
	}
}
