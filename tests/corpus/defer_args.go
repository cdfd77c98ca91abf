//go:build ignore

// A deferred call's arguments are evaluated when the defer statement runs.
package main

import "fmt"

func trace(msg string) string {
	fmt.Println("enter", msg)
	return msg
}

func un(msg string) { fmt.Println("leave", msg) }

func work() {
	defer un(trace("work"))
	x := 1
	defer fmt.Println("deferred x =", x)
	x = 2
	defer func() { fmt.Println("closure x =", x) }()
	x = 3
	fmt.Println("in work")
}

func main() {
	work()
}
