//go:build ignore

// Map, filter and reduce written with function parameters.
package main

import (
	"fmt"
	"strings"
)

func mapStrings(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func filter(xs []int, keep func(int) bool) []int {
	var out []int
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func reduce(xs []int, acc int, f func(int, int) int) int {
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

func main() {
	fmt.Println(mapStrings([]string{"a", "bc"}, strings.ToUpper))
	odd := filter([]int{1, 2, 3, 4, 5}, func(n int) bool { return n%2 == 1 })
	fmt.Println(odd, reduce(odd, 0, func(a, b int) int { return a + b }))
}
