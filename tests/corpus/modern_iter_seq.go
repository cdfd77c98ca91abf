//go:build ignore

// iter.Seq and iter.Seq2 as return types; composing iterators.
package main

import (
	"fmt"
	"iter"
)

func Naturals() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 1; ; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func Filter[T any](seq iter.Seq[T], keep func(T) bool) iter.Seq[T] {
	return func(yield func(T) bool) {
		for v := range seq {
			if keep(v) && !yield(v) {
				return
			}
		}
	}
}

func Take[T any](seq iter.Seq[T], n int) iter.Seq[T] {
	return func(yield func(T) bool) {
		if n <= 0 {
			return
		}
		i := 0
		for v := range seq {
			if !yield(v) {
				return
			}
			i++
			if i == n {
				return
			}
		}
	}
}

func Enumerate[T any](s []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

func main() {
	odd := Filter(Naturals(), func(n int) bool { return n%2 == 1 })
	for v := range Take(odd, 5) {
		fmt.Print(v, " ")
	}
	fmt.Println()
	for i, s := range Enumerate([]string{"x", "y"}) {
		fmt.Println(i, s)
	}
}
