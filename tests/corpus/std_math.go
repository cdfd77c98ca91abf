//go:build ignore

// The math package: rounding, powers, trigonometry and special values.
package main

import (
	"fmt"
	"math"
)

func main() {
	fmt.Println(math.Floor(-1.5), math.Ceil(-1.5), math.Round(2.5), math.Trunc(-2.7))
	fmt.Println(math.Pow(2, 10), math.Sqrt(144), math.Cbrt(27), math.Hypot(5, 12))
	fmt.Printf("%.4f %.4f %.4f\n", math.Sin(math.Pi/6), math.Cos(0), math.Atan2(1, 1))
	fmt.Printf("%.5f %.5f\n", math.Log(math.E), math.Log10(1000))
	fmt.Println(math.Inf(1) > math.MaxFloat64, math.IsInf(-math.Inf(1), -1), math.Mod(7, 3), math.Abs(-2))
	fr, exp := math.Frexp(8)
	fmt.Println(fr, exp, math.MaxInt32, math.MinInt64)
}
