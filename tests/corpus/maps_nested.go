//go:build ignore

// Maps of maps must have each inner map made before use.
package main

import "fmt"

func main() {
	graph := map[string]map[string]int{}
	add := func(from, to string, w int) {
		if graph[from] == nil {
			graph[from] = map[string]int{}
		}
		graph[from][to] = w
	}
	add("a", "b", 1)
	add("a", "c", 4)
	add("b", "c", 2)
	fmt.Println(graph["a"]["c"], graph["b"]["c"], graph["c"]["a"], len(graph))
	fmt.Println(graph)
}
