//go:build ignore

// Generic types whose methods share names, met in a type switch, a method
// expression, a method value and encoding/json.
package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

type List[T any] struct{ Items []T }

func (l *List[T]) Add(v T)  { l.Items = append(l.Items, v) }
func (l *List[T]) Len() int { return len(l.Items) }

type Set[T comparable] struct{ Items map[T]bool }

func (s *Set[T]) Add(v T) {
	if s.Items == nil {
		s.Items = map[T]bool{}
	}
	s.Items[v] = true
}
func (s *Set[T]) Len() int { return len(s.Items) }

func describe(x any) string {
	switch v := x.(type) {
	case *List[int]:
		return fmt.Sprint("list of ", v.Len())
	case *Set[int]:
		return fmt.Sprint("set of ", v.Len())
	}
	return "other"
}

func main() {
	var l List[int]
	var s Set[int]
	for _, v := range []int{3, 1, 3, 2} {
		l.Add(v)
		s.Add(v)
	}
	fmt.Println(l.Len(), s.Len(), describe(&l), describe(&s))
	lenOf := (*Set[int]).Len
	fmt.Println(lenOf(&s))
	b, err := json.Marshal(s)
	fmt.Println(string(b), err)
	var back Set[int]
	err = json.Unmarshal([]byte(`{"Items":{"5":true}}`), &back)
	fmt.Println(back.Len(), back.Items[5], err)
	keys := make([]int, 0)
	for k := range s.Items {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	fmt.Println(keys)
	f := s.Add
	f(10)
	fmt.Printf("%d %v\n", s.Len(), s.Items[10])
}
