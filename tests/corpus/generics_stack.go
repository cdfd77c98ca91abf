//go:build ignore

// A generic type: a stack of any element type.
package main

import "fmt"

type Stack[T any] struct {
	items []T
}

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

func (s *Stack[T]) Len() int { return len(s.items) }

func main() {
	var ints Stack[int]
	ints.Push(1)
	ints.Push(2)
	v, ok := ints.Pop()
	fmt.Println(v, ok, ints.Len())
	words := &Stack[string]{}
	words.Push("go")
	w, _ := words.Pop()
	_, ok = words.Pop()
	fmt.Println(w, ok)
}
