//go:build ignore

// Generic Map and Filter with two type parameters, inferred from the arguments.
package main

import (
	"fmt"
	"strconv"
)

func Map[T, U any](s []T, f func(T) U) []U {
	out := make([]U, 0, len(s))
	for _, v := range s {
		out = append(out, f(v))
	}
	return out
}

func Filter[T any](s []T, keep func(T) bool) []T {
	var out []T
	for _, v := range s {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

func main() {
	nums := []int{1, 2, 3, 4}
	strs := Map(nums, func(n int) string { return strconv.Itoa(n * n) })
	fmt.Println(strs, len(strs))
	fmt.Println(Filter(nums, func(n int) bool { return n > 2 }))
	fmt.Println(Map(strs, func(s string) int { return len(s) }))
}
