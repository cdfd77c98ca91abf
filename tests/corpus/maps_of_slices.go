//go:build ignore

// A map of slices groups values; appending to a missing key starts a slice.
package main

import (
	"fmt"
	"sort"
)

func main() {
	byLen := map[int][]string{}
	for _, w := range []string{"go", "is", "fun", "and", "fast", "code"} {
		byLen[len(w)] = append(byLen[len(w)], w)
	}
	lens := []int{}
	for k := range byLen {
		lens = append(lens, k)
	}
	sort.Ints(lens)
	for _, k := range lens {
		fmt.Println(k, byLen[k])
	}
}
