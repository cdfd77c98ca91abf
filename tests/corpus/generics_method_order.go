//go:build ignore

// Methods of generic types that call methods declared further down, on
// pointer and value receivers, from closures too.
package main

import (
	"fmt"
	"iter"
	"slices"
)

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(vs ...T) {
	for _, v := range vs {
		s.grow()
		s.items = append(s.items, v)
	}
}

func (s *Stack[T]) Pop() (T, bool) {
	if s.Empty() {
		var zero T
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

func (s *Stack[T]) Empty() bool { return s.Len() == 0 }
func (s *Stack[T]) Len() int    { return len(s.items) }

func (s *Stack[T]) grow() {
	if cap(s.items) == len(s.items) {
		s.items = slices.Grow(s.items, 4)
	}
}

func (s Stack[T]) String() string { return fmt.Sprint("stack", s.values()) }
func (s Stack[T]) values() []T    { return s.items }

type Tree[T any] struct {
	Left, Right *Tree[T]
	Val         T
}

func (t *Tree[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) { t.walk(yield) }
}

func (t *Tree[T]) walk(yield func(T) bool) bool {
	if t == nil {
		return true
	}
	return t.Left.walk(yield) && yield(t.Val) && t.Right.walk(yield)
}

func main() {
	var s Stack[string]
	s.Push("a", "b", "c")
	fmt.Println(s, s.Len())
	for !s.Empty() {
		v, _ := s.Pop()
		fmt.Print(v)
	}
	fmt.Println()
	p := &Stack[int]{}
	p.Push(1, 2)
	fmt.Println(p.String(), *p)
	t := &Tree[int]{Val: 2, Left: &Tree[int]{Val: 1}, Right: &Tree[int]{Val: 3}}
	fmt.Println(slices.Collect(t.All()))
}
