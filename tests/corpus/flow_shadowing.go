//go:build ignore

// Each block has its scope; an inner declaration shadows an outer one.
package main

import "fmt"

var x = "package"

func main() {
	fmt.Println(x)
	x := "function"
	fmt.Println(x)
	{
		x := "block"
		fmt.Println(x)
	}
	if x := 3; x > 2 {
		fmt.Println("if", x)
	}
	for x := 0; x < 1; x++ {
		fmt.Println("for", x)
	}
	fmt.Println(x)
}
