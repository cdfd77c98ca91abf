//go:build ignore

// A loop variable changed in the body carries over to the next iteration's copy.
package main

import "fmt"

func main() {
	var fs []func() int
	for i := 0; i < 10; i++ {
		if i%2 == 0 {
			i++ // skips the odd number
		}
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
