//go:build ignore

// Functions with parameters, shared parameter types and several results.
package main

import "fmt"

func add(x, y int) int { return x + y }

func swap(a, b string) (string, string) { return b, a }

func divmod(a, b int) (int, int) { return a / b, a % b }

func main() {
	fmt.Println(add(40, 2))
	x, y := swap("left", "right")
	fmt.Println(x, y)
	q, r := divmod(47, 5)
	fmt.Println(q, r)
	_, r2 := divmod(-7, 3)
	fmt.Println(r2)
}
