//go:build ignore

// Named results and a bare return.
package main

import "fmt"

func split(sum int) (x, y int) {
	x = sum * 4 / 9
	y = sum - x
	return
}

func stats(xs []float64) (mean, spread float64) {
	if len(xs) == 0 {
		return
	}
	lo, hi := xs[0], xs[0]
	for _, v := range xs {
		mean += v
		lo = min(lo, v)
		hi = max(hi, v)
	}
	mean /= float64(len(xs))
	spread = hi - lo
	return mean, spread
}

func main() {
	fmt.Println(split(17))
	fmt.Println(stats([]float64{2, 4, 9}))
	fmt.Println(stats(nil))
}
