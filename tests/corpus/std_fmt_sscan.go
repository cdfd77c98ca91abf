//go:build ignore

// Parsing text with fmt.Sscan and fmt.Sscanf.
package main

import "fmt"

func main() {
	var name string
	var age int
	n, err := fmt.Sscanf("ann 31", "%s %d", &name, &age)
	fmt.Println(n, err, name, age)
	var a, b float64
	fmt.Sscan("1.5 2.25", &a, &b)
	fmt.Println(a + b)
	var x int
	_, err = fmt.Sscanf("abc", "%d", &x)
	fmt.Println(err != nil)
}
