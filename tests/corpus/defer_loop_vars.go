//go:build ignore

// Deferred closures in a loop see each iteration's own variable.
package main

import "fmt"

func show() {
	for i := 0; i < 4; i++ {
		defer func() { fmt.Print(i, " ") }()
	}
}

func showRange() {
	for _, s := range []string{"a", "b", "c"} {
		defer func() { fmt.Print(s, " ") }()
	}
}

func main() {
	show()
	fmt.Println()
	showRange()
	fmt.Println()
}
