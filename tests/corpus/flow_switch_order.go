//go:build ignore

// Switch cases are evaluated top to bottom, stopping at the first match.
package main

import "fmt"

var calls []string

func f(name string, v int) int {
	calls = append(calls, name)
	return v
}

func main() {
	switch f("tag", 2) {
	case f("a", 1):
		fmt.Println("one")
	case f("b", 2):
		fmt.Println("two")
	case f("c", 3):
		fmt.Println("three")
	}
	fmt.Println(calls)
}
