//go:build ignore

// Explicit conversions between numeric types and strings.
package main

import (
	"fmt"
	"math"
	"strconv"
)

func main() {
	x, y := 3, 4
	f := math.Sqrt(float64(x*x + y*y))
	z := uint(f)
	fmt.Println(x, y, f, z)
	neg, pos := -2.9, 2.9
	fmt.Println(int(neg), int(pos), int64(math.Floor(-2.5)))
	fmt.Println(string(rune(65)), []byte("hi"), []rune("héllo"))
	n, err := strconv.Atoi("123")
	fmt.Println(n+1, err)
	_, err = strconv.Atoi("12a")
	fmt.Println(err)
	fmt.Println(strconv.Itoa(-45), strconv.FormatFloat(1.5, 'f', 3, 64), strconv.Quote("tab\t"))
	var big int32 = 300
	fmt.Println(int8(big), uint8(big))
}
