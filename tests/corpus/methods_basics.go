//go:build ignore

// Methods are functions with a receiver.
package main

import (
	"fmt"
	"math"
)

type Vertex struct{ X, Y float64 }

func (v Vertex) Abs() float64 { return math.Sqrt(v.X*v.X + v.Y*v.Y) }

func (v Vertex) Add(w Vertex) Vertex { return Vertex{v.X + w.X, v.Y + w.Y} }

func main() {
	v := Vertex{3, 4}
	fmt.Println(v.Abs())
	fmt.Println(v.Add(Vertex{1, 1}).Abs() > v.Abs())
	fmt.Println(Vertex{}.Abs())
}
