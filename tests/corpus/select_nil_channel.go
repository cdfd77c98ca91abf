//go:build ignore

// A nil channel is never ready, which disables its case in a select.
package main

import "fmt"

func merge(a, b <-chan int) []int {
	var out []int
	for a != nil || b != nil {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			out = append(out, v)
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			out = append(out, v*100)
		}
	}
	return out
}

func main() {
	a := make(chan int, 3)
	b := make(chan int, 3)
	a <- 1
	a <- 2
	b <- 3
	close(a)
	close(b)
	res := merge(a, b)
	sum := 0
	for _, v := range res {
		sum += v
	}
	fmt.Println(len(res), sum)
}
