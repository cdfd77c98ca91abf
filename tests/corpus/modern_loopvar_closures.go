//go:build ignore

// Go 1.22 gives each iteration of a for loop its own variable.
package main

import "fmt"

func main() {
	var prints []func()
	for i := 0; i < 3; i++ {
		prints = append(prints, func() { fmt.Print(i, " ") })
	}
	for _, p := range prints {
		p()
	}
	fmt.Println()
	var ptrs []*int
	for i := 0; i < 3; i++ {
		ptrs = append(ptrs, &i)
	}
	fmt.Println(*ptrs[0], *ptrs[1], *ptrs[2])
	var names []func() string
	for _, n := range []string{"x", "y"} {
		names = append(names, func() string { return n })
	}
	fmt.Println(names[0](), names[1]())
}
