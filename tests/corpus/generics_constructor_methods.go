//go:build ignore

// Methods of generic types call the types' generic constructors with
// the types' own parameters (Union makes its result with newSet[T]),
// on values that the constructors made.
package main

import (
	"fmt"
	"slices"
	"sort"
)

type Set[T comparable] struct{ m map[T]struct{} }

func newSet[T comparable](xs ...T) *Set[T] {
	s := &Set[T]{m: map[T]struct{}{}}
	for _, x := range xs {
		s.m[x] = struct{}{}
	}
	return s
}

func (s *Set[T]) Union(o *Set[T]) *Set[T] {
	r := newSet[T]()
	for _, src := range []*Set[T]{s, o} {
		for k := range src.m {
			r.m[k] = struct{}{}
		}
	}
	return r
}

func (s *Set[T]) Len() int { return len(s.m) }

type Matrix[T int | float64] struct {
	rows, cols int
	data       []T
}

func NewMatrix[T int | float64](r, c int) *Matrix[T] {
	return &Matrix[T]{rows: r, cols: c, data: make([]T, r*c)}
}

func (m *Matrix[T]) T() *Matrix[T] {
	t := NewMatrix[T](m.cols, m.rows)
	for i := range m.rows {
		for j := range m.cols {
			t.data[j*m.rows+i] = m.data[i*m.cols+j]
		}
	}
	return t
}

func main() {
	u := newSet("x", "y").Union(newSet("y", "z"))
	var keys []string
	for k := range u.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys, u.Len(), newSet(1, 2, 2).Union(newSet(3)).Len())

	m := NewMatrix[float64](2, 3)
	for i := range m.data {
		m.data[i] = float64(i)
	}
	t := m.T()
	fmt.Println(t.rows, t.cols, t.data, slices.Equal(t.T().data, m.data))
}
