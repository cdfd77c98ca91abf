//go:build ignore

// A map to struct{} or bool serves as a set.
package main

import (
	"fmt"
	"sort"
)

func main() {
	set := map[string]struct{}{}
	for _, s := range []string{"b", "a", "b", "c", "a"} {
		set[s] = struct{}{}
	}
	_, hasA := set["a"]
	_, hasZ := set["z"]
	fmt.Println(len(set), hasA, hasZ)
	seen := map[int]bool{}
	dups := []int{}
	for _, n := range []int{3, 1, 3, 2, 1} {
		if seen[n] {
			dups = append(dups, n)
		}
		seen[n] = true
	}
	sort.Ints(dups)
	fmt.Println(dups)
}
