//go:build ignore

// While a panic unwinds, every deferred call of every frame still runs.
package main

import "fmt"

func level(n int) {
	defer fmt.Println("leaving level", n)
	if n == 3 {
		panic("bottom reached")
	}
	level(n + 1)
}

func main() {
	func() {
		defer func() { fmt.Println("recovered:", recover()) }()
		level(1)
	}()
	fmt.Println("end")
}
