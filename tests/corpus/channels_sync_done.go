//go:build ignore

// A done channel signals that work has finished.
package main

import "fmt"

func worker(done chan<- bool, log *[]string) {
	*log = append(*log, "working")
	*log = append(*log, "done")
	done <- true
}

func main() {
	var log []string
	done := make(chan bool, 1)
	go worker(done, &log)
	<-done
	fmt.Println(log)
}
