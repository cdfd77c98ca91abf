//go:build ignore

// Arrays have a fixed length that is part of their type; they are values.
package main

import "fmt"

func main() {
	var a [3]string
	a[0], a[1] = "Hello", "World"
	fmt.Println(a, len(a))
	primes := [...]int{2, 3, 5, 7, 11, 13}
	fmt.Println(primes, len(primes))
	b := primes
	b[0] = 99
	fmt.Println(primes[0], b[0], primes == [6]int{2, 3, 5, 7, 11, 13})
	var grid [2][3]int
	grid[1][2] = 5
	fmt.Println(grid)
	idx := [5]int{1: 10, 3: 30}
	fmt.Println(idx)
}
