//go:build ignore

// A map is a reference: a function can change the caller's map; a nil map reads as empty.
package main

import "fmt"

func addOne(m map[string]int, k string) { m[k]++ }

func main() {
	m := map[string]int{}
	addOne(m, "x")
	addOne(m, "x")
	fmt.Println(m["x"])
	alias := m
	alias["y"] = 9
	fmt.Println(len(m), m["y"])
	var nilMap map[string]int
	fmt.Println(nilMap["any"], len(nilMap))
	for range nilMap {
		fmt.Println("never")
	}
}
