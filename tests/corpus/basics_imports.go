//go:build ignore

// Grouped imports and qualified names from several packages.
package main

import (
	"fmt"
	"math"
	"strings"
)

func main() {
	fmt.Printf("sqrt(7) = %.4f\n", math.Sqrt(7))
	fmt.Println(strings.ToUpper("gopher"), math.MaxInt8, math.Pi > 3)
	fmt.Println(strings.Repeat("ab", 3), strings.Contains("seafood", "foo"))
}
