//go:build ignore

// Struct fields through a pointer: p.X is (*p).X.
package main

import "fmt"

type Vertex struct{ X, Y int }

func main() {
	v := Vertex{1, 2}
	p := &v
	p.X = 1e9
	fmt.Println(v)
	(*p).Y = -1
	fmt.Println(v.Y)
	q := &Vertex{Y: 5}
	q.X++
	fmt.Println(*q)
	vs := []*Vertex{{1, 1}, {2, 2}}
	for _, v := range vs {
		v.X *= 10
	}
	fmt.Println(*vs[0], *vs[1])
}
