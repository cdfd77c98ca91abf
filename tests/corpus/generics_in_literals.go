//go:build ignore

// Calls of generic functions, their type arguments inferred, as the
// elements of slice, array, struct and map literals.
package main

import "fmt"

func Id[T any](v T) T { return v }

func Square[T int | float64](v T) T { return v * v }

type Point struct{ X, Y float64 }

func main() {
	xs := []int{Id(1), Square(3)}
	arr := [2]string{Id("a"), Id("b")}
	p := Point{Square(1.5), Id(2.0)}
	ps := []Point{{Square(2.0), 1}, {X: Id(0.5)}}
	m := map[string]int{"one": Id(1), "nine": Square(3)}
	nested := [][]int{{Id(1)}, {Square(2), Id(3)}}
	fmt.Println(xs, arr, p, ps, m["nine"], len(m), nested)
}
