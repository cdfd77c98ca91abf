//go:build ignore

// Recursive functions: factorial, power set size and the Ackermann function.
package main

import "fmt"

func fact(n uint64) uint64 {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func ackermann(m, n int) int {
	switch {
	case m == 0:
		return n + 1
	case n == 0:
		return ackermann(m-1, 1)
	}
	return ackermann(m-1, ackermann(m, n-1))
}

func subsets(xs []string) [][]string {
	if len(xs) == 0 {
		return [][]string{{}}
	}
	rest := subsets(xs[1:])
	out := rest
	for _, r := range rest {
		out = append(out, append([]string{xs[0]}, r...))
	}
	return out
}

func main() {
	fmt.Println(fact(5), fact(20))
	fmt.Println(ackermann(2, 3))
	fmt.Println(subsets([]string{"a", "b", "c"}))
}
