//go:build ignore

// min and max on a generic function's type parameter, with declared
// types for it, constants among the arguments, first or later.
package main

import (
	"cmp"
	"fmt"
)

type Celsius float64
type Rank int
type Name string

func Smaller[T cmp.Ordered](a, b T) T { return min(a, b) }

func Clamp[T cmp.Ordered](v, lo, hi T) T { return max(lo, min(v, hi)) }

func Cap[T ~int | ~float64](v T) T { return min(100, v) }

func Floor[T ~int | ~float64](v T) T { return max(0, v, -5) }

func Extremes[T cmp.Ordered](xs []T) (lo, hi T) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func main() {
	fmt.Println(Smaller(3, 2), Smaller("b", "a"), Smaller(Rank(4), Rank(9)))
	fmt.Println(Smaller(Celsius(-1.5), Celsius(2)), Smaller(Name("zed"), Name("amy")))
	fmt.Println(Clamp(Rank(15), 0, 10), Clamp(Celsius(-3), 0, 1), Clamp(Name("m"), "a", "k"))
	fmt.Println(Cap(Rank(150)), Cap(Rank(7)), Cap(Celsius(250.5)), Cap(42.0))
	fmt.Println(Floor(Rank(-3)), Floor(Celsius(12.25)))
	lo, hi := Extremes([]Celsius{21.5, -4, 30, 7})
	fmt.Println(lo, hi)
	rlo, rhi := Extremes([]Rank{3, 1, 2})
	nlo, nhi := Extremes([]Name{"kim", "al", "zo"})
	fmt.Println(rlo, rhi, nlo, nhi)
	fmt.Printf("%T %T\n", Smaller(Rank(1), 2), Cap(Celsius(1)))
}
