//go:build ignore

// The two-value receive tells a value from the closing of the channel.
package main

import "fmt"

func main() {
	ch := make(chan int, 2)
	ch <- 5
	close(ch)
	v, ok := <-ch
	fmt.Println(v, ok)
	v, ok = <-ch
	fmt.Println(v, ok)
	done := make(chan struct{})
	close(done)
	_, open := <-done
	fmt.Println(open)
}
