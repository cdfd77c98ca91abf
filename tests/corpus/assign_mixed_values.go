//go:build ignore

// Defines and var declarations that mix composite literals with other
// values, package-level variables computed by generic functions, and a
// generic function used as a value.
package main

import (
	"fmt"
	"slices"
)

type Point struct{ X, Y int }

var origin, unit = Point{}, &Point{1, 1}
var best = slices.Max([]int{3, 9, 4})

func scale[T int | float64](v T) T { return 2 * v }

func main() {
	n, p := 5, Point{1, 2}
	q, ptr := Point{3, 4}, &Point{5, 6}
	xs, count := []string{"a", "b"}, len("abc")
	var m, k = map[string]int{"x": 1}, 2.5
	fmt.Println(n, p, q, *ptr, xs, count, m, k)
	fmt.Println(origin, *unit, best)
	if i, pts := 0, []Point{{7, 8}}; i < len(pts) {
		fmt.Println(pts[i])
	}
	double := scale[int]
	fmt.Println(double(21), slices.IndexFunc(xs, func(s string) bool { return s == "b" }))
}
