//go:build ignore

// Complex numbers and the math/cmplx package.
package main

import (
	"fmt"
	"math/cmplx"
)

func main() {
	z := complex(1, 2)
	w := 3 - 1i
	fmt.Println(z+w, z*w, z/w)
	fmt.Println(real(z), imag(w), cmplx.Abs(3+4i))
	fmt.Printf("%.3f\n", cmplx.Sqrt(-1))
	var c64 complex64 = 1 + 1i
	fmt.Printf("%T %v\n", c64, c64*c64)
}
