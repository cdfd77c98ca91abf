//go:build ignore

// A generic Reduce with an accumulator of another type.
package main

import "fmt"

func Reduce[T, A any](xs []T, init A, f func(A, T) A) A {
	acc := init
	for _, x := range xs {
		acc = f(acc, x)
	}
	return acc
}

type stats struct{ n, sum int }

func main() {
	words := []string{"alpha", "be", "gamma"}
	total := Reduce(words, 0, func(n int, s string) int { return n + len(s) })
	fmt.Println(total)
	st := Reduce([]int{4, 5, 6}, stats{}, func(s stats, v int) stats { return stats{s.n + 1, s.sum + v} })
	fmt.Printf("%+v\n", st)
}
