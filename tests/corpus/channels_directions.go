//go:build ignore

// Send-only and receive-only channel types in signatures.
package main

import "fmt"

func produce(out chan<- int, n int) {
	for i := 1; i <= n; i++ {
		out <- i
	}
	close(out)
}

func double(in <-chan int, out chan<- int) {
	for v := range in {
		out <- v * 2
	}
	close(out)
}

func main() {
	a := make(chan int)
	b := make(chan int)
	go produce(a, 5)
	go double(a, b)
	var got []int
	for v := range b {
		got = append(got, v)
	}
	fmt.Println(got)
}
