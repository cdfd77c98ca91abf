//go:build ignore

// Variadic functions take any number of trailing arguments.
package main

import (
	"fmt"
	"strings"
)

func join(sep string, parts ...string) string { return strings.Join(parts, sep) }

func maxOf(first int, rest ...int) int {
	m := first
	for _, v := range rest {
		if v > m {
			m = v
		}
	}
	return m
}

func describe(args ...any) string {
	return fmt.Sprintf("%d args: %v", len(args), args)
}

func main() {
	fmt.Println(join("-"), join("-", "a"), join("-", "a", "b", "c"))
	fmt.Println(maxOf(3), maxOf(3, 9, 2))
	fmt.Println(describe(), describe(1, "two", 3.0))
	words := []string{"x", "y"}
	fmt.Println(join("+", words...))
}
