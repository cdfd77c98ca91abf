//go:build ignore

// The basic types and their sizes and limits.
package main

import (
	"fmt"
	"math"
)

func main() {
	var (
		toBe   bool       = false
		maxInt uint64     = 1<<64 - 1
		z      complex128 = complex(3, -4)
		r      rune       = 'é'
		by     byte       = 'A'
		i8     int8       = math.MinInt8
	)
	fmt.Printf("%T %v\n", toBe, toBe)
	fmt.Printf("%T %v\n", maxInt, maxInt)
	fmt.Printf("%T %v %v\n", z, z, real(z)*real(z)+imag(z)*imag(z))
	fmt.Printf("%T %v %c\n", r, r, r)
	fmt.Printf("%T %v %c\n", by, by, by)
	fmt.Printf("%T %v\n", i8, i8)
	fmt.Println(math.MaxUint32, math.SmallestNonzeroFloat64 > 0, math.MaxFloat32)
}
