//go:build ignore

// A generic pair type with a String method, built by generic functions
// that append to slices of it, printed whole.
package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

func SortedPairs[K cmp.Ordered, V any](m map[K]V) []Pair[K, V] {
	var ps []Pair[K, V]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ps = append(ps, Pair[K, V]{k, m[k]})
	}
	return ps
}

func Zip[K comparable, V any](ks []K, vs []V) []Pair[K, V] {
	ps := make([]Pair[K, V], 0, len(ks))
	for i := range min(len(ks), len(vs)) {
		ps = append(ps, Pair[K, V]{ks[i], vs[i]})
	}
	return ps
}

func main() {
	fmt.Println(SortedPairs(map[string]int{"b": 2, "a": 1, "c": 3}))
	z := Zip([]int{1, 2, 3}, []string{"one", "two"})
	fmt.Println(z, len(z))
	fmt.Printf("%v %s\n", z[0], z[1])
}
