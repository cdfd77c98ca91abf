//go:build ignore

// Nested loops print a multiplication table.
package main

import "fmt"

func main() {
	for i := 1; i <= 5; i++ {
		for j := 1; j <= 5; j++ {
			fmt.Printf("%4d", i*j)
		}
		fmt.Println()
	}
}
