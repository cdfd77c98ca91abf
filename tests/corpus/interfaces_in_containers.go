//go:build ignore

// Interface values inside slices, maps and structs print as the values they hold.
package main

import (
	"errors"
	"fmt"
	"sort"
)

type Shape interface{ Area() float64 }

type Rect struct{ W, H float64 }

func (r Rect) Area() float64 { return r.W * r.H }

type Circle struct{ R float64 }

func (c Circle) Area() float64 { return 3 * c.R * c.R }

type Level int

func (l Level) String() string { return [...]string{"low", "high"}[l] }

type NotFound struct{ Name string }

func (e *NotFound) Error() string { return e.Name + " not found" }

type Labeled struct {
	Label string
	Shape Shape
}

func main() {
	shapes := []Shape{Rect{2, 5}, Circle{1}, Rect{1, 1}}
	sort.Slice(shapes, func(i, j int) bool { return shapes[i].Area() < shapes[j].Area() })
	fmt.Println(shapes)
	byName := map[string]Shape{"disc": Circle{2}, "square": Rect{3, 3}}
	fmt.Println(byName)
	fmt.Println([]any{Rect{1, 2}, 3, "x", nil, Level(1), &NotFound{"key"}})
	fmt.Printf("%v %+v\n", Labeled{"a", Circle{1}}, Labeled{Label: "b", Shape: Rect{1, 2}})
	errs := []error{&NotFound{"a"}, errors.New("plain"), nil}
	fmt.Println(errs)
	fmt.Printf("%#v %#v\n", []any{1, nil}, map[string]any{"k": Level(0)})
	fmt.Printf("%T %T\n", shapes, []any{Rect{}})
}
