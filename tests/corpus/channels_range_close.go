//go:build ignore

// The sender closes a channel; range receives until it is closed and drained.
package main

import "fmt"

func fibonacci(n int, c chan int) {
	x, y := 0, 1
	for i := 0; i < n; i++ {
		c <- x
		x, y = y, x+y
	}
	close(c)
}

func main() {
	c := make(chan int, 10)
	go fibonacci(cap(c), c)
	for i := range c {
		fmt.Print(i, " ")
	}
	fmt.Println()
	v, ok := <-c
	fmt.Println(v, ok)
}
