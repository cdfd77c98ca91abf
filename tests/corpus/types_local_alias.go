//go:build ignore

// Type aliases declared inside functions name the same types as what
// they alias.
package main

import "fmt"

type Point struct{ X, Y int }

func main() {
	type Celsius = float64
	type (
		Names = []string
		Index = map[string]Names
	)
	type P = Point
	var t Celsius = 21.5
	idx := Index{"a": Names{"x", "y"}}
	p := P{1, 2}
	var q Point = p
	fmt.Printf("%T %v\n", t, t*2)
	fmt.Printf("%T %v %d\n", idx, idx, len(idx["a"]))
	fmt.Printf("%T %v %v\n", p, p, q == p)
	func() {
		type Pair = struct {
			K string
			V int
		}
		fmt.Printf("%+v\n", Pair{"k", 1})
	}()
}
