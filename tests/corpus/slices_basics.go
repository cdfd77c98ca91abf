//go:build ignore

// A slice is a view of an array: slicing shares the elements.
package main

import "fmt"

func main() {
	primes := [6]int{2, 3, 5, 7, 11, 13}
	var s []int = primes[1:4]
	fmt.Println(s)
	s[0] = 300
	fmt.Println(primes)
	names := []string{"John", "Paul", "George", "Ringo"}
	a, b := names[0:2], names[1:3]
	b[0] = "XXX"
	fmt.Println(a, b, names)
	fmt.Println(names[:2], names[2:], names[:])
}
