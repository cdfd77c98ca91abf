//go:build ignore

// An unbuffered channel synchronises a sender and a receiver.
package main

import "fmt"

func sum(s []int, c chan int) {
	total := 0
	for _, v := range s {
		total += v
	}
	c <- total
}

func main() {
	s := []int{7, 2, 8, -9, 4, 0}
	c := make(chan int)
	go sum(s[:len(s)/2], c)
	x := <-c
	go sum(s[len(s)/2:], c)
	y := <-c
	fmt.Println(x, y, x+y)
}
