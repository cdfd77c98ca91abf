//go:build ignore

// Instances of generic types whose type arguments are instances
// themselves: variables, literals, slices of them, a generic function
// instantiated with one, and a linked list of pairs.
package main

import "fmt"

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

type Box[T any] struct {
	V T
	N int
}

type List[T any] struct {
	Head T
	Tail *List[T]
}

func Push[T any](l *List[T], v T) *List[T] { return &List[T]{v, l} }

func Wrap[T any](v T) Box[T] { return Box[T]{V: v, N: 1} }

func main() {
	var empty Box[Pair[string, int]]
	full := Box[Pair[string, int]]{V: Pair[string, int]{"a", 1}, N: 2}
	fmt.Printf("%v %+v\n", empty, full)

	rows := []Box[Pair[string, Box[int]]]{{N: 1}, {V: Pair[string, Box[int]]{"b", Box[int]{7, 0}}}}
	fmt.Println(rows, len(rows))

	w := Wrap[Pair[string, int]](Pair[string, int]{"z", 9})
	fmt.Println(w.V.Key, w.N)

	var l *List[Pair[string, float64]]
	for i, k := range []string{"x", "y", "z"} {
		l = Push(l, Pair[string, float64]{k, float64(i) / 2})
	}
	for n := l; n != nil; n = n.Tail {
		fmt.Print(n.Head.Key, "=", n.Head.Val, " ")
	}
	fmt.Println()
}
