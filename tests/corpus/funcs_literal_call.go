//go:build ignore

// A function literal called where it is written.
package main

import "fmt"

func main() {
	result := func(a, b int) int { return a * b }(6, 7)
	fmt.Println(result)
	msg := func() string {
		parts := []string{"built", "inline"}
		return parts[0] + " " + parts[1]
	}()
	fmt.Println(msg)
	var fact func(int) int
	fact = func(n int) int {
		if n == 0 {
			return 1
		}
		return n * fact(n-1)
	}
	fmt.Println(fact(6))
}
