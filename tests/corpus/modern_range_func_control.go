//go:build ignore

// A loop over an iterator may break, continue and return from the enclosing function.
package main

import (
	"fmt"
	"slices"
)

func firstOver(xs []int, limit int) int {
	for _, v := range slices.All(xs) {
		if v > limit {
			return v
		}
	}
	return -1
}

func main() {
	xs := []int{3, 8, 1, 12, 7}
	fmt.Println(firstOver(xs, 5), firstOver(xs, 100))
	sum := 0
	for i, v := range slices.All(xs) {
		if i == 1 {
			continue
		}
		if v == 12 {
			break
		}
		sum += v
	}
	fmt.Println(sum)
}
