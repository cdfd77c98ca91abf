//go:build ignore

// Deferred functions may read and change named results.
package main

import "fmt"

func c() (i int) {
	defer func() { i++ }()
	return 1
}

func tripled() (n int) {
	defer func() { n *= 3 }()
	n = 2
	return n + 1
}

func main() {
	fmt.Println(c(), tripled())
}
