//go:build ignore

// A body that changes its copy of a range's index changes nothing of the
// loop's: each iteration declares the index anew with the next value, in
// a range over an integer, a slice, an array and a pointer to one, also
// through a pointer to the index or in a closure; a range assigning to a
// variable declared before it leaves the last value there.
package main

import "fmt"

func main() {
	for i := range 5 {
		fmt.Print(i, " ")
		i += 10
	}
	fmt.Println()

	words := []string{"a", "b", "c", "d"}
	for i, w := range words {
		fmt.Print(i, w, " ")
		i *= 2
		i++
	}
	fmt.Println()

	var fs []func() int
	for i := range [3]int{} {
		p := &i
		*p += 100
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()

	arr := &[3]rune{'x', 'y', 'z'}
	for i, r := range arr {
		bump := func() { i-- }
		bump()
		fmt.Print(i, string(r), " ")
	}
	fmt.Println()

	for i := range int8(3) {
		i++
		fmt.Printf("%T=%d ", i, i)
	}
	fmt.Println()

	var last int
	for last = range 4 {
		last += 5
	}
	fmt.Println("last", last)
}
