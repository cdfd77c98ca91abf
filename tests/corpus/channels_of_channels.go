//go:build ignore

// Channels of channels: requests that carry their own reply channel.
package main

import "fmt"

type request struct {
	n     int
	reply chan int
}

func server(reqs <-chan request) {
	for r := range reqs {
		r.reply <- r.n * r.n
	}
}

func main() {
	reqs := make(chan request)
	go server(reqs)
	for i := 1; i <= 3; i++ {
		r := request{i, make(chan int)}
		reqs <- r
		fmt.Println(i, <-r.reply)
	}
	close(reqs)
}
