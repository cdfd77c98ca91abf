//go:build ignore

// Removing, inserting and filtering in place with slice idioms.
package main

import "fmt"

func remove(s []string, i int) []string { return append(s[:i], s[i+1:]...) }

func insert(s []int, i, v int) []int {
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

func main() {
	s := []string{"a", "b", "c", "d"}
	s = remove(s, 1)
	fmt.Println(s, len(s))
	n := []int{1, 2, 4}
	n = insert(n, 2, 3)
	fmt.Println(n)
	xs := []int{1, 2, 3, 4, 5, 6, 7}
	evens := xs[:0]
	for _, x := range xs {
		if x%2 == 0 {
			evens = append(evens, x)
		}
	}
	fmt.Println(evens)
	for i, j := 0, len(n)-1; i < j; i, j = i+1, j-1 {
		n[i], n[j] = n[j], n[i]
	}
	fmt.Println(n)
}
