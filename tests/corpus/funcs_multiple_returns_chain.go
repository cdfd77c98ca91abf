//go:build ignore

// A call's several results may be passed straight to another function.
package main

import "fmt"

func minmax(xs ...int) (int, int) {
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func span(lo, hi int) int { return hi - lo }

func parts() (string, int, bool) { return "p", 2, true }

func main() {
	fmt.Println(minmax(4, 1, 9))
	fmt.Println(span(minmax(4, 1, 9)))
	fmt.Println(parts())
	a, b, c := parts()
	fmt.Println(c, b, a)
}
