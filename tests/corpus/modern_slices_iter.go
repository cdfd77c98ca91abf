//go:build ignore

// slices.Collect, slices.Sorted, slices.Values, slices.All and slices.Backward.
package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []string{"c", "a", "b"}
	for i, v := range slices.All(s) {
		fmt.Print(i, v, " ")
	}
	fmt.Println()
	for i, v := range slices.Backward(s) {
		fmt.Print(i, v, " ")
	}
	fmt.Println()
	sorted := slices.Sorted(slices.Values(s))
	fmt.Println(sorted, s)
	doubled := slices.Collect(func(yield func(int) bool) {
		for _, v := range []int{1, 2, 3} {
			if !yield(v * 2) {
				return
			}
		}
	})
	fmt.Println(doubled)
	fmt.Println(slices.Repeat([]int{0, 1}, 3), slices.Concat([]int{1}, []int{2, 3}))
	chunks := [][]int{}
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		chunks = append(chunks, c)
	}
	fmt.Println(chunks)
}
