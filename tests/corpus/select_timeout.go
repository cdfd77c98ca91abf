//go:build ignore

// select with time.After: a result that is already there wins over a long timeout.
package main

import (
	"fmt"
	"time"
)

func main() {
	result := make(chan string, 1)
	result <- "fast answer"
	select {
	case r := <-result:
		fmt.Println(r)
	case <-time.After(time.Hour):
		fmt.Println("timed out")
	}
	never := make(chan string)
	select {
	case r := <-never:
		fmt.Println(r)
	case <-time.After(10 * time.Millisecond):
		fmt.Println("timed out")
	}
}
