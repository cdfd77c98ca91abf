//go:build ignore

// clear empties a map, the keys that are not equal to themselves (NaN,
// which delete cannot remove) included, and zeroes a slice's elements.
package main

import (
	"fmt"
	"math"
)

func main() {
	m := map[string]int{"a": 1, "b": 2}
	clear(m)
	fmt.Println(len(m), m)
	m["c"] = 3
	fmt.Println(m)
	s := []int{1, 2, 3}
	clear(s[1:])
	fmt.Println(s, len(s))

	f := map[float64]string{math.NaN(): "x", 1: "y"}
	f[math.NaN()] = "z"
	delete(f, math.NaN())
	fmt.Println(len(f))
	clear(f)
	fmt.Println(len(f), f)
}
