//go:build ignore

// A closure that returns successive Fibonacci numbers.
package main

import "fmt"

func fibonacci() func() int {
	a, b := 0, 1
	return func() int {
		r := a
		a, b = b, a+b
		return r
	}
}

func main() {
	f := fibonacci()
	for i := 0; i < 12; i++ {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
