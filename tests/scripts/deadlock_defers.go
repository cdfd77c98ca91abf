//go:build ignore

// A program that deadlocks ends at once, as Go's does: its deferred calls
// do not run.
package main

import "fmt"

func main() {
	defer fmt.Println("deferred: not run")
	ch := make(chan int)
	fmt.Println("before")
	ch <- 1
}

// Exit: 2
// Output:
// before
// fatal error: all goroutines are asleep - deadlock!
// 	(1 goroutine waiting: channel operation or select; none can go on, and nothing else would wake one)
