//go:build ignore

// clear empties a map and zeroes a slice's elements.
package main

import "fmt"

func main() {
	m := map[string]int{"a": 1, "b": 2}
	clear(m)
	fmt.Println(len(m), m)
	m["c"] = 3
	fmt.Println(m)
	s := []int{1, 2, 3}
	clear(s[1:])
	fmt.Println(s, len(s))
}
