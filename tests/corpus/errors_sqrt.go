//go:build ignore

// A named type with an Error method, converted before formatting to avoid recursion.
package main

import (
	"fmt"
	"math"
)

type ErrNegativeSqrt float64

func (e ErrNegativeSqrt) Error() string {
	return fmt.Sprintf("cannot Sqrt negative number: %v", float64(e))
}

func Sqrt(x float64) (float64, error) {
	if x < 0 {
		return 0, ErrNegativeSqrt(x)
	}
	z := 1.0
	for i := 0; i < 20; i++ {
		z -= (z*z - x) / (2 * z)
	}
	return z, nil
}

func main() {
	v, err := Sqrt(2)
	fmt.Printf("%.6f %v\n", v, err)
	fmt.Println(math.Abs(v-math.Sqrt2) < 1e-12)
	fmt.Println(Sqrt(-2))
}
