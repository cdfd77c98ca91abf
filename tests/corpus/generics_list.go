//go:build ignore

// A generic linked list with an iterator method.
package main

import "fmt"

type List[T any] struct {
	head, tail *element[T]
	n          int
}

type element[T any] struct {
	next *element[T]
	val  T
}

func (l *List[T]) Push(v T) {
	e := &element[T]{val: v}
	if l.tail == nil {
		l.head = e
	} else {
		l.tail.next = e
	}
	l.tail = e
	l.n++
}

func (l *List[T]) Each(f func(T)) {
	for e := l.head; e != nil; e = e.next {
		f(e.val)
	}
}

func main() {
	var l List[string]
	l.Push("a")
	l.Push("b")
	l.Push("c")
	l.Each(func(s string) { fmt.Print(s, " ") })
	fmt.Println(l.n)
	var nums List[float64]
	nums.Push(1.5)
	sum := 0.0
	nums.Each(func(f float64) { sum += f })
	fmt.Println(sum)
}
