//go:build ignore

// Two generic types with methods of the same names, instantiated with the
// same type arguments, each run their own methods.
package main

import "fmt"

type ID int

type Stack[T any] struct{ items []T }

func NewStack[T any]() *Stack[T] { return &Stack[T]{} }
func (s *Stack[T]) Push(v T)     { s.items = append(s.items, v) }
func (s *Stack[T]) Len() int     { return len(s.items) }
func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

type Queue[T any] struct{ items []T }

func NewQueue[T any](vs ...T) *Queue[T] { return &Queue[T]{items: vs} }
func (q *Queue[T]) Push(v T)            { q.items = append(q.items, v) }
func (q *Queue[T]) Len() int            { return len(q.items) }
func (q *Queue[T]) Pop() (T, bool) {
	var zero T
	if len(q.items) == 0 {
		return zero, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

type Counter[K comparable] struct{ m map[K]int }

func (c *Counter[K]) Push(k K) {
	if c.m == nil {
		c.m = map[K]int{}
	}
	c.m[k]++
}

func (c *Counter[K]) Len() int { return len(c.m) }

type Sized interface{ Len() int }

func total(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func main() {
	s, q := NewStack[int](), NewQueue(10, 20)
	for i := 1; i <= 3; i++ {
		s.Push(i)
		q.Push(i * 100)
	}
	a, _ := s.Pop()
	b, _ := q.Pop()
	fmt.Println(s.Len(), q.Len(), a, b, total(a, b))

	var c Counter[int]
	c.Push(7)
	c.Push(7)
	c.Push(8)
	for _, x := range []Sized{s, q, &c} {
		fmt.Print(x.Len(), " ")
	}
	fmt.Println(c.m)

	var ids Queue[ID]
	ids.Push(4)
	ids.Push(2)
	stack := NewStack[ID]()
	stack.Push(9)
	first, ok := ids.Pop()
	var n int = int(first)
	fmt.Println(n, ok, ids.Len(), stack.Len(), ids.items)

	words := NewQueue("a", "b")
	fmt.Println(words.Len(), *words)
}
