//go:build ignore

// A generic struct with two type parameters and a generic function building it.
package main

import "fmt"

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

func MakePair[K comparable, V any](k K, v V) Pair[K, V] { return Pair[K, V]{k, v} }

func Swap[A, B comparable](p Pair[A, B]) Pair[B, A] { return Pair[B, A]{p.Val, p.Key} }

func main() {
	p := MakePair("answer", 42)
	fmt.Println(p, p.Key, p.Val)
	q := Swap(p)
	fmt.Println(q.Key+1, q.Val)
	ps := []Pair[int, bool]{{1, true}, {2, false}}
	fmt.Println(ps)
}
