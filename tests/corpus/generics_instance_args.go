//go:build ignore

// Generic code that hands its own instances to other generic functions:
// the type arguments (Pair[K, V], Box[T]) are inferred from the arguments.
package main

import (
	"cmp"
	"fmt"
	"slices"
)

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

type Box[T any] struct{ V T }

func describe[E any](e E) string { return fmt.Sprintf("%v", e) }

func apply[E any](xs []E, f func(E) int) (n int) {
	for _, x := range xs {
		n += f(x)
	}
	return n
}

func SortedPairs[K cmp.Ordered, V any](m map[K]V) []Pair[K, V] {
	ps := make([]Pair[K, V], 0, len(m))
	for k, v := range m {
		ps = append(ps, Pair[K, V]{k, v})
	}
	slices.SortFunc(ps, func(a, b Pair[K, V]) int { return cmp.Compare(a.Key, b.Key) })
	return ps
}

func Boxed[T any](v T) string {
	return describe(Box[T]{v})
}

func Weight[K comparable, V any](ps []Pair[K, V], w func(V) int) int {
	return apply(ps, func(p Pair[K, V]) int { return w(p.Val) })
}

func main() {
	ps := SortedPairs(map[string]int{"z": 26, "a": 1, "m": 13})
	fmt.Println(ps)
	fmt.Println(Boxed(2.5), Boxed("s"))
	fmt.Println(Weight(ps, func(v int) int { return v * 2 }))
}
