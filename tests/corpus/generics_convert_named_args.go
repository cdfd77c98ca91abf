//go:build ignore

// Conversions to and from a type parameter work for a type argument that
// is a declared type (type Celsius float64) or another package's named
// type (time.Duration), as for a basic one: an Average that divides by
// T(len(xs)), a generic function that converts its result to float64,
// and math/rand/v2's N of a duration.
package main

import (
	"fmt"
	"math/rand/v2"
	"time"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Count int

type Number interface{ ~int | ~int64 | ~float64 }

func Average[T Number](xs []T) T {
	var sum T
	for _, x := range xs {
		sum += x
	}
	return sum / T(len(xs))
}

func Ratio[T Number](a, b T) float64 { return float64(a) / float64(b) }

func Clamp[T ~int | ~int64](x, hi int) T { return T(min(x, hi)) }

func main() {
	fmt.Println(Average([]float64{1, 2}), Average([]Celsius{20, 25}))
	fmt.Println(Average([]Count{3, 4, 8}))
	fmt.Println(Ratio(Celsius(30), 20), Ratio(Count(1), 4))
	fmt.Println(Clamp[Count](9, 5), Clamp[time.Duration](7, 100))
	d := rand.N(10 * time.Second)
	fmt.Println(d >= 0 && d < 10*time.Second)
	fmt.Printf("%T %T\n", Average([]Celsius{1}), Clamp[time.Duration](1, 2))
}
