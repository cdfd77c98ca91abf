//go:build ignore

// Deferred calls run last in, first out.
package main

import "fmt"

func count() {
	fmt.Println("counting")
	for i := 0; i < 5; i++ {
		defer fmt.Print(i, " ")
	}
	fmt.Println("done")
}

func main() {
	count()
	fmt.Println()
}
