//go:build ignore

// iter.Pull turns a push iterator into next and stop functions.
package main

import (
	"fmt"
	"iter"
	"slices"
)

func main() {
	next, stop := iter.Pull(slices.Values([]string{"a", "b", "c"}))
	defer stop()
	for {
		v, ok := next()
		if !ok {
			break
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
}
