//go:build ignore

// A return in main ends the program: the statements after it do not run,
// and the calls deferred so far do, last in first out.
package main

import "fmt"

func main() {
	sum := 0
	for i := 1; i <= 10; i++ {
		sum += i
	}
	fmt.Println("sum", sum)

	words := []string{"alpha", "beta", "stop", "gamma"}
	for i, w := range words {
		defer fmt.Println("deferred", i, w)
		if w == "stop" {
			fmt.Println("stopping at", i)
			return
		}
		fmt.Println("word", w)
	}
	fmt.Println("not reached")
}
