//go:build ignore

// The maps package: Keys and Values as iterators, Clone, Equal, DeleteFunc and Collect.
package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	keys := slices.Sorted(maps.Keys(m))
	fmt.Println(keys)
	vals := slices.Sorted(maps.Values(m))
	fmt.Println(vals)
	c := maps.Clone(m)
	c["d"] = 4
	fmt.Println(len(m), len(c), maps.Equal(m, c))
	maps.DeleteFunc(c, func(k string, v int) bool { return v%2 == 0 })
	fmt.Println(c)
	inv := maps.Collect(func(yield func(int, string) bool) {
		for k, v := range m {
			if !yield(v, k) {
				return
			}
		}
	})
	fmt.Println(inv)
	for k, v := range maps.All(map[string]bool{"only": true}) {
		fmt.Println(k, v)
	}
}
