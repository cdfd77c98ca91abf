//go:build ignore

// A default case makes select non-blocking.
package main

import "fmt"

func main() {
	ch := make(chan int, 1)
	select {
	case v := <-ch:
		fmt.Println("received", v)
	default:
		fmt.Println("nothing ready")
	}
	ch <- 1
	select {
	case ch <- 2:
		fmt.Println("sent")
	default:
		fmt.Println("buffer full")
	}
	select {
	case v, ok := <-ch:
		fmt.Println("received", v, ok)
	default:
		fmt.Println("nothing ready")
	}
}
