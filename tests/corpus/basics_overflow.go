//go:build ignore

// Integer arithmetic wraps around; division truncates toward zero.
package main

import (
	"fmt"
	"math"
)

func main() {
	var u uint8 = 250
	u += 10
	fmt.Println(u)
	var i int8 = 127
	i++
	fmt.Println(i)
	x := math.MaxInt64
	x++
	fmt.Println(x == math.MinInt64)
	fmt.Println(-7/2, -7%2, 7/-2, 7%-2)
	fmt.Println(1<<3|1, 6&3, 6^3, 6&^3, -8>>1)
	var f float64 = 1
	fmt.Println(f/0, -f/0, math.IsNaN(math.NaN()))
}
