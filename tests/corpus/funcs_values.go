//go:build ignore

// Functions are values: passed, returned and stored.
package main

import (
	"fmt"
	"math"
)

func compute(fn func(float64, float64) float64) float64 { return fn(3, 4) }

func main() {
	hypot := func(x, y float64) float64 { return math.Sqrt(x*x + y*y) }
	fmt.Println(hypot(5, 12))
	fmt.Println(compute(hypot))
	fmt.Println(compute(math.Pow))
	ops := map[string]func(int, int) int{
		"add": func(a, b int) int { return a + b },
		"mul": func(a, b int) int { return a * b },
	}
	fmt.Println(ops["add"](2, 3), ops["mul"](2, 3))
}
