//go:build ignore

// Values of an interface the program declares compare as their dynamic
// values do: equal structs, the same pointer, a concrete operand, nil,
// and a switch on such a value.
package main

import "fmt"

type Shape interface{ Area() float64 }

type Rect struct{ w, h float64 }

func (r Rect) Area() float64 { return r.w * r.h }

func main() {
	var a, b Shape = Rect{1, 2}, Rect{1, 2}
	var c Shape = Rect{1, 3}
	p := &Rect{2, 2}
	var d, e Shape = p, p
	var f Shape = &Rect{2, 2}
	fmt.Println(a == b, a != c, d == e, d == f, a == Rect{1, 2}, a != nil)
	var none, zero Shape
	fmt.Println(none == zero, none == nil)
	for _, s := range []Shape{a, c, d, nil} {
		switch s {
		case Rect{1, 2}:
			fmt.Println("1×2")
		case d:
			fmt.Println("the pointer")
		case nil:
			fmt.Println("none")
		default:
			fmt.Println("other", s.Area())
		}
	}
}
