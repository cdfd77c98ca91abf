//go:build ignore

// A generic set type built on a map.
package main

import (
	"fmt"
	"sort"
)

type Set[T comparable] map[T]struct{}

func NewSet[T comparable](xs ...T) Set[T] {
	s := Set[T]{}
	for _, x := range xs {
		s[x] = struct{}{}
	}
	return s
}

func (s Set[T]) Has(x T) bool { _, ok := s[x]; return ok }

func (s Set[T]) Union(o Set[T]) Set[T] {
	out := Set[T]{}
	for k := range s {
		out[k] = struct{}{}
	}
	for k := range o {
		out[k] = struct{}{}
	}
	return out
}

func main() {
	a := NewSet(1, 2, 3)
	b := NewSet(3, 4)
	u := a.Union(b)
	var keys []int
	for k := range u {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	fmt.Println(keys, a.Has(2), b.Has(2))
}
