//go:build ignore

// Calls of the generic functions of slices and maps as the elements of
// composite literals, with keys and without.
package main

import (
	"fmt"
	"maps"
	"slices"
)

type Stat struct {
	Max, Min int
	Keys     []string
}

func main() {
	xs := []int{3, 9, 4}
	m := map[string]int{"b": 1, "a": 2}
	s := Stat{slices.Max(xs), slices.Min(xs), slices.Sorted(maps.Keys(m))}
	fmt.Printf("%+v\n", s)
	pairs := [][2]int{{slices.Max(xs), slices.Index(xs, 9)}}
	fmt.Println(pairs, []int{slices.Max(xs), slices.Min(xs)})
	type Path struct{ Nodes []string }
	stack := []string{"a", "b", "c"}
	p := &Path{append(slices.Clone(stack[1:]), "a")}
	fmt.Println(p.Nodes, [][]int{append(slices.Clone(xs), 1)})
}
