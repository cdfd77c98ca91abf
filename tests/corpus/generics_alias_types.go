//go:build ignore

// A type alias may have type parameters (Go 1.24): Set[T] is another
// name for map[T]struct{}, and its instances are the same types as the
// types they stand for.
package main

import (
	"fmt"
	"slices"
	"sort"
)

type Set[T comparable] = map[T]struct{}

type Pair[K comparable, V any] = struct {
	Key K
	Val V
}

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

type IntStack = Stack[int]

type Pile[T any] = Stack[T]

func add[T comparable](s Set[T], vs ...T) {
	for _, v := range vs {
		s[v] = struct{}{}
	}
}

func sorted(s Set[string]) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func pairs[K comparable, V any](m map[K]V) []Pair[K, V] {
	var out []Pair[K, V]
	for k, v := range m {
		out = append(out, Pair[K, V]{k, v})
	}
	return out
}

func main() {
	s := Set[string]{}
	add(s, "b", "a", "b")
	fmt.Println(len(s), sorted(s))
	var m map[string]struct{} = s // the same type
	fmt.Printf("%T %d\n", s, len(m))

	ps := pairs(map[string]int{"x": 1, "y": 2})
	slices.SortFunc(ps, func(a, b Pair[string, int]) int { return a.Val - b.Val })
	fmt.Printf("%v %+v\n", ps, ps[0])

	var st IntStack
	st.Push(1)
	var p Pile[string]
	p.Push("top")
	fmt.Println(st.items, p.items)
}
