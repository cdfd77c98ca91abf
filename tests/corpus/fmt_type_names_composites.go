//go:build ignore

// %T and %#v of maps, arrays, channels, functions and slices of pointers
// whose element or key types are the program's struct types, passed
// directly and held in interfaces.
package main

import "fmt"

type Point struct{ X, Y int }

type Cell struct {
	Row, Col int
	Tag      string
}

func show(x any) { fmt.Printf("%T\n", x) }

func main() {
	show(map[string]Point{"a": {1, 2}})
	show([2]Point{})
	show(Point{})
	show(make(chan Cell))
	show(func(Point) Cell { return Cell{} })
	show([]*Cell{})
	show(map[Point][]Cell{})
	var x any = map[Point]bool{{1, 1}: true}
	fmt.Printf("%T %v\n", x, x)
	fmt.Printf("%#v\n", x)
	fmt.Printf("%#v\n", []*Point{nil})
	fmt.Printf("%#v\n", any(map[string]Cell{"c": {1, 2, "t"}}))
	fmt.Printf("%T %T\n", []any{[]Point{}}, map[string]Point{})
}
