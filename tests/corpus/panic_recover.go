//go:build ignore

// recover in a deferred function stops a panic; the function returns normally.
package main

import "fmt"

func mayPanic(n int) {
	if n > 2 {
		panic(fmt.Sprintf("n too big: %d", n))
	}
	fmt.Println("ok", n)
}

func protect(n int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Println("recovered:", r)
		}
	}()
	mayPanic(n)
	fmt.Println("not reached when panicking")
}

func main() {
	protect(1)
	protect(5)
	fmt.Println("main goes on")
}
