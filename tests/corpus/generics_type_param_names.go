//go:build ignore

// Values of the program's types reach fmt through a type parameter: %T
// names their types as go run does.
package main

import "fmt"

type Point struct{ X, Y int }

type Labeled interface{ Label() string }

type Tag struct{ Name string }

func (t *Tag) Label() string { return "#" + t.Name }

func describe[T any](v T) string { return fmt.Sprintf("%T: %v", v, v) }

func labels[L Labeled](ls ...L) {
	for _, l := range ls {
		fmt.Printf("%T %s\n", l, l.Label())
	}
}

func main() {
	fmt.Println(describe(Point{1, 2}))
	fmt.Println(describe(&Point{3, 4}))
	fmt.Println(describe(42), describe("s"))
	labels(&Tag{"go"}, &Tag{"shell"})
}
