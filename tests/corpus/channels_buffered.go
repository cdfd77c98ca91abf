//go:build ignore

// A buffered channel holds values until they are received.
package main

import "fmt"

func main() {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	fmt.Println(len(ch), cap(ch))
	fmt.Println(<-ch)
	ch <- "c"
	ch <- "d"
	fmt.Println(<-ch, <-ch, <-ch, len(ch))
}
