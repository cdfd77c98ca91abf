//go:build ignore

// A switch without a tag whose cases list several conditions: the first
// true one selects the case, tried left to right and no further.
package main

import "fmt"

var calls []string

func check(name string, v bool) bool {
	calls = append(calls, name)
	return v
}

func classify(x int) string {
	switch {
	case x < 0, x > 100:
		return "out of range"
	case x == 0, x == 100:
		return "edge"
	case x%2 == 0:
		return "even"
	default:
		return "odd"
	}
}

func main() {
	for _, x := range []int{-5, 0, 7, 42, 100, 101} {
		fmt.Println(x, classify(x))
	}
	a, b := false, true
	switch {
	case a, b:
		fmt.Println("matched")
	default:
		fmt.Println("default")
	}
	switch {
	case check("a", false), check("b", true), check("c", true):
		fmt.Println("second condition")
	case check("d", true):
		fmt.Println("not reached")
	}
	fmt.Println(calls)
	switch n := len(calls); {
	case n > 5, n == 2:
		fmt.Println("two calls")
		fallthrough
	case false, false:
		fmt.Println("fell through")
	}
	switch true {
	case a, b:
		fmt.Println("tag true")
	}
}
