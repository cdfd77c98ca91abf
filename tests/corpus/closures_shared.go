//go:build ignore

// Closures created together share the variables they capture.
package main

import "fmt"

func pair() (inc func(), get func() int) {
	n := 0
	inc = func() { n++ }
	get = func() int { return n }
	return
}

func main() {
	inc, get := pair()
	inc()
	inc()
	fmt.Println(get())
	x := 1
	show := func() { fmt.Println("x is", x) }
	x = 2
	show()
}
