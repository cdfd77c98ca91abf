//go:build ignore

// The smallest program: a package, an import and main.
package main

import "fmt"

func main() {
	fmt.Println("Hello, corpus")
	fmt.Println("two", "words", 3, 4.5, true)
}
