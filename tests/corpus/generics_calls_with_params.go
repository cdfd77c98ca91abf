//go:build ignore

// Generic functions that call other generic functions with their own type
// parameters, instantiated with the program's types.
package main

import (
	"fmt"
	"sort"
	"strings"
)

type ID int

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

func Count[T comparable](xs []T) map[T]int {
	m := map[T]int{}
	for _, x := range xs {
		m[x]++
	}
	return m
}

func Dups[T comparable](xs []T) []T {
	var out []T
	for k, n := range Count(xs) {
		if n > 1 {
			out = append(out, k)
		}
	}
	return out
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Describe[T fmt.Stringer](xs []T) string {
	return strings.Join(Map(xs, func(x T) string { return x.String() }), " ")
}

func main() {
	ids := Dups([]ID{3, 1, 3, 2, 1})
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	fmt.Println(ids, Dups([]Point{{1, 1}, {1, 1}, {2, 2}}))
	fmt.Println(Describe([]Point{{1, 2}, {3, 4}}))
	fmt.Println(Map([]ID{1, 2}, func(i ID) Point { return Point{int(i), 0} }))
}
