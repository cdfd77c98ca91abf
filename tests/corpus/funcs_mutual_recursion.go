//go:build ignore

// Functions declared at the package level may call each other in any order.
package main

import "fmt"

func isEven(n int) bool {
	if n == 0 {
		return true
	}
	return isOdd(n - 1)
}

func isOdd(n int) bool {
	if n == 0 {
		return false
	}
	return isEven(n - 1)
}

func main() {
	for _, n := range []int{0, 7, 10} {
		fmt.Println(n, isEven(n), isOdd(n))
	}
}
