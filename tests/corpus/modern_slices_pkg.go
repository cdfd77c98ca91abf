//go:build ignore

// The slices package: sort, search, compare and edit with generic functions.
package main

import (
	"fmt"
	"slices"
	"strings"
)

func main() {
	s := []int{5, 2, 8, 2, 9, 1}
	slices.Sort(s)
	fmt.Println(s, slices.IsSorted(s))
	i, found := slices.BinarySearch(s, 8)
	fmt.Println(i, found)
	fmt.Println(slices.Index(s, 9), slices.Contains(s, 7), slices.Max(s), slices.Min(s))
	s = slices.Compact(s)
	fmt.Println(s)
	s = slices.Insert(s, 1, 100, 101)
	fmt.Println(s)
	s = slices.Delete(s, 0, 2)
	fmt.Println(s)
	slices.Reverse(s)
	fmt.Println(s, slices.Equal(s, []int{9, 8, 5, 2, 101}))
	words := []string{"Banana", "apple", "Cherry"}
	slices.SortFunc(words, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	fmt.Println(words, slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "C") }))
}
