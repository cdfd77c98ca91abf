//go:build ignore

// range over a function: a push iterator yields values to the loop body.
package main

import "fmt"

func countdown(from int) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := from; i >= 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}

func pairs(s []string) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for i, v := range s {
			if !yield(i*10, v) {
				return
			}
		}
	}
}

func main() {
	for v := range countdown(3) {
		fmt.Print(v, " ")
	}
	fmt.Println()
	for v := range countdown(100) {
		if v < 97 {
			break
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	for k, v := range pairs([]string{"a", "b"}) {
		fmt.Print(k, "=", v, " ")
	}
	fmt.Println()
}
