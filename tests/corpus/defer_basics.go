//go:build ignore

// A deferred call runs when the surrounding function returns.
package main

import "fmt"

func greet() {
	defer fmt.Println("world")
	fmt.Println("hello")
}

func main() {
	greet()
	fmt.Println("after")
}
