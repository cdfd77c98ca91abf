//go:build ignore

// A generic numeric function over integer and float types, with conversions.
package main

import "fmt"

type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

type Float interface{ ~float32 | ~float64 }

func Mean[T Integer | Float](xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s T
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

func Abs[T Integer | Float](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

func main() {
	fmt.Println(Mean([]int{1, 2, 3, 4}), Mean([]float32{0.5, 1.5}), Mean([]int8(nil)))
	fmt.Println(Abs(-3), Abs(2.5), Abs(int16(-7)))
}
