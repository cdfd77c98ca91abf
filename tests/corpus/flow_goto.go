//go:build ignore

// goto jumps to a label in the same function.
package main

import "fmt"

func collatz(n int) int {
	steps := 0
loop:
	if n == 1 {
		return steps
	}
	if n%2 == 0 {
		n /= 2
	} else {
		n = 3*n + 1
	}
	steps++
	goto loop
}

func main() {
	for _, n := range []int{1, 6, 7, 27} {
		fmt.Println(n, collatz(n))
	}
}
