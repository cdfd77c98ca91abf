//go:build ignore

// Generic functions over maps: keys, values and inversion.
package main

import (
	"fmt"
	"sort"
)

func Keys[M ~map[K]V, K comparable, V any](m M) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func Invert[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

type Scores map[string]int

func main() {
	s := Scores{"ann": 3, "bob": 5, "cy": 1}
	keys := Keys(s)
	sort.Strings(keys)
	fmt.Println(keys)
	inv := Invert(map[string]int{"one": 1, "two": 2})
	fmt.Println(inv[1], inv[2], len(inv))
}
