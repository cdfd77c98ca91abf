//go:build ignore

// A for-select loop serving two channels until both are drained.
package main

import "fmt"

func main() {
	nums := make(chan int)
	words := make(chan string)
	done := make(chan bool)
	go func() {
		for i := 1; i <= 3; i++ {
			nums <- i
		}
		done <- true
	}()
	total := 0
	finished := false
	for !finished {
		select {
		case n := <-nums:
			total += n
		case w := <-words:
			fmt.Println("word", w)
		case <-done:
			finished = true
		}
	}
	fmt.Println(total)
}
