//go:build ignore

// The min and max builtins take any number of ordered arguments; of
// constants, they make a constant of the kind of the arguments taken
// together, a float's even when the value is an integer's.
package main

import "fmt"

func main() {
	fmt.Println(min(3, 1, 2), max(3, 1, 2))
	fmt.Println(min(2.5, 1), max("apple", "banana", "cherry"))
	x, y := 7, -4
	fmt.Println(min(x, y, 0), max(x, y, 10))
	var f float32 = 1.5
	fmt.Printf("%T %v\n", max(f, 2), max(f, 2))
	const c = min(1, 2.0)
	fmt.Println(c)
	const k, r = min(1, 2.5), max(1, 'a')
	fmt.Printf("%v %T, %v %T, %T\n", k, k, r, r, k*3)
}
