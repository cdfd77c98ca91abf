//go:build ignore

// One-way channels made directly (make(chan<- int, 2)), and two-way ones
// passed where a one-way channel is wanted.
package main

import "fmt"

func produce(out chan<- int, n int) {
	for i := range n {
		out <- i * i
	}
	close(out)
}

func consume(in <-chan int) (sum int) {
	for v := range in {
		sum += v
	}
	return sum
}

func main() {
	sendOnly := make(chan<- int, 2)
	sendOnly <- 1
	fmt.Println(len(sendOnly), cap(sendOnly))
	recvOnly := make(<-chan string)
	fmt.Println(cap(recvOnly), recvOnly != nil)
	fmt.Printf("%T %T\n", sendOnly, recvOnly)

	ch := make(chan int, 5)
	go produce(ch, 5)
	fmt.Println(consume(ch))

	var out chan<- int = make(chan int, 1)
	out <- 3
	fmt.Println(len(out))
}
