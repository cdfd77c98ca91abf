//go:build ignore

// Euclid's algorithm for the greatest common divisor, and the least common multiple.
package main

import "fmt"

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

func main() {
	fmt.Println(gcd(48, 18), gcd(17, 5), gcd(0, 9))
	l := 1
	for i := 1; i <= 20; i++ {
		l = lcm(l, i)
	}
	fmt.Println(l)
}
