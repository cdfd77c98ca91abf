//go:build ignore

// Values of instances of generic types in an any keep their types' names
// for %T and %v.
package main

import "fmt"

type Box[T any] struct{ V T }

func (b Box[T]) Get() T { return b.V }

type Stack[T any] struct{ items []T }

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func main() {
	var a any = Box[string]{"x"}
	fmt.Printf("%T %v\n", a, a)
	s := &Stack[int]{}
	s.Push(1)
	s.Push(2)
	things := []any{Box[int]{7}, s, Box[string]{"y"}.Get(), 3}
	for _, t := range things {
		fmt.Printf("%T\n", t)
	}
	var p any = Pair[string, int]{"a", 1}
	fmt.Printf("%T %v %T\n", p, p, &p)
	switch v := a.(type) {
	case Box[int]:
		fmt.Println("int box", v.V)
	case Box[string]:
		fmt.Println("string box", v.V)
	}
}
