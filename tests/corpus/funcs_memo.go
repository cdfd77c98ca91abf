//go:build ignore

// Memoizing a recursive function with a map.
package main

import "fmt"

func main() {
	memo := map[int]int{}
	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		if v, ok := memo[n]; ok {
			return v
		}
		v := fib(n-1) + fib(n-2)
		memo[n] = v
		return v
	}
	fmt.Println(fib(50), len(memo))
	paths := map[[2]int]int{}
	var grid func(r, c int) int
	grid = func(r, c int) int {
		if r == 0 || c == 0 {
			return 1
		}
		k := [2]int{r, c}
		if v, ok := paths[k]; ok {
			return v
		}
		paths[k] = grid(r-1, c) + grid(r, c-1)
		return paths[k]
	}
	fmt.Println(grid(10, 10))
}
