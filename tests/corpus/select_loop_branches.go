//go:build ignore

// break, continue and goto inside the cases of a select in a loop: a
// labelled break leaves the loop, continue starts the next iteration, and
// a plain break leaves only the select.
package main

import (
	"fmt"
	"time"
)

func main() {
	ch := make(chan int, 1)
	ch <- 1
	n, k := 0, 0
	for n < 5 {
		n++
		select {
		case <-ch:
			k += 10
			continue
		default:
			k++
		}
		k += 100
	}
	fmt.Println("continue:", n, k)

	done := time.After(20 * time.Millisecond)
	ticks := 0
loop:
	for {
		select {
		case <-done:
			break loop
		default:
			ticks++
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Println("break loop:", ticks > 0)

	k = 0
	for i := 0; i < 3; i++ {
		ch <- i
		select {
		case v := <-ch:
			if v == 1 {
				break
			}
			k += 10
		}
		k++
	}
	fmt.Println("plain break:", k)

	k = 0
outer:
	for i := range 3 {
		for j := range 3 {
			ch <- i*3 + j
			select {
			case v := <-ch:
				if v == 5 {
					break outer
				}
				if j == 1 {
					continue outer
				}
				k += v
			}
		}
	}
	fmt.Println("nested:", k)

	jobs := make(chan int, 3)
	for i := range 3 {
		jobs <- i
	}
	close(jobs)
	fmt.Println("goto:", drain(jobs))
}

// drain adds up what jobs holds, leaving its loop by a goto.
func drain(jobs chan int) int {
	sum := 0
	for {
		select {
		case j, ok := <-jobs:
			if !ok {
				goto end
			}
			sum += j
		}
	}
end:
	return sum
}
