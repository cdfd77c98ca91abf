//go:build ignore

// Untyped numeric constants are exact and take the type they need.
package main

import "fmt"

const (
	Big   = 1 << 100
	Small = Big >> 99
)

func needInt(x int) int           { return x*10 + 1 }
func needFloat(x float64) float64 { return x * 0.1 }

func main() {
	fmt.Println(needInt(Small))
	fmt.Println(needFloat(Small))
	fmt.Println(needFloat(Big))
	const third = 1.0 / 3
	fmt.Println(third*3 == 1, float32(third))
	fmt.Println(Big / (1 << 98))
}
