//go:build ignore

// range over slices, arrays, strings, maps and channels, with one, two or no variables.
package main

import (
	"fmt"
	"sort"
)

func main() {
	nums := []int{10, 20, 30}
	for i := range nums {
		fmt.Print(i, " ")
	}
	for _, v := range nums {
		fmt.Print(v, " ")
	}
	for range nums {
		fmt.Print(". ")
	}
	fmt.Println()
	arr := [3]string{"x", "y", "z"}
	for i, s := range arr {
		fmt.Print(i, s, " ")
	}
	fmt.Println()
	m := map[string]int{"one": 1, "two": 2, "three": 3}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys)
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	ch <- 3
	close(ch)
	total := 0
	for v := range ch {
		total += v
	}
	fmt.Println(total)
}
