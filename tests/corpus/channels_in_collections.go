//go:build ignore

// Channels kept in slices, arrays and maps, ranged over with their values:
// the first ready one by select, closing them all, counting what they hold.
package main

import (
	"fmt"
	"slices"
)

func first(chs ...chan int) (int, bool) {
	for _, ch := range chs {
		select {
		case v := <-ch:
			return v, true
		default:
		}
	}
	return 0, false
}

func closeAll(chs []chan int) {
	for _, ch := range chs {
		close(ch)
	}
}

func main() {
	a, b := make(chan int, 2), make(chan int, 2)
	fmt.Println(first(a, b))
	b <- 5
	b <- 6
	fmt.Println(first(a, b))

	byName := map[string]chan int{"a": a, "b": b}
	var names []string
	for name, ch := range byName {
		names = append(names, fmt.Sprint(name, len(ch)))
	}
	slices.Sort(names)
	fmt.Println(names)

	pair := [2]chan int{a, b}
	total := 0
	var ch chan int
	for _, ch = range pair {
		total += len(ch)
	}
	fmt.Println(total, ch == b)

	closeAll([]chan int{a, b})
	sum := 0
outer:
	for i, c := range &pair {
		for v := range c {
			sum += v
			if i == 1 {
				continue outer
			}
		}
	}
	fmt.Println(sum)
}
