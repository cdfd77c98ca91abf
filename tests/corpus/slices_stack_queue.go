//go:build ignore

// A slice as a stack and as a queue.
package main

import "fmt"

func main() {
	var stack []int
	for i := 1; i <= 3; i++ {
		stack = append(stack, i)
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fmt.Print(top, " ")
	}
	fmt.Println()
	queue := []string{"a", "b"}
	queue = append(queue, "c")
	for len(queue) > 0 {
		var head string
		head, queue = queue[0], queue[1:]
		fmt.Print(head, " ")
	}
	fmt.Println()
}
