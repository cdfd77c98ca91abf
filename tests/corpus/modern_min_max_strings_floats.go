//go:build ignore

// min and max with floats and NaN, and on a mix of constants and variables.
package main

import (
	"fmt"
	"math"
)

func main() {
	nan := math.NaN()
	fmt.Println(math.IsNaN(min(1.0, nan)), math.IsNaN(max(nan, 2.0)))
	fmt.Println(min(-0.0, 0.0), max(math.Inf(-1), -1e300))
	lo, hi := 10, 20
	for _, v := range []int{5, 15, 25} {
		fmt.Print(max(lo, min(v, hi)), " ")
	}
	fmt.Println()
}
