//go:build ignore

// Composite literals of instantiated generic types: written out in full,
// nested in other literals, as elements of slices and maps, and behind &.
package main

import (
	"fmt"
	"time"
)

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

type Entry struct {
	Name string
	P    Pair[string, int]
}

func first() Pair[string, int] { return Pair[string, int]{"first", 1} }

func main() {
	p := Pair[string, int]{"a", 1}
	e := Entry{"e", Pair[string, int]{"b", 2}}
	fmt.Println(p, e, first())

	list := []Pair[string, int]{Pair[string, int]{"c", 3}, p, {"d", 4}}
	byKey := map[string]Pair[string, int]{"x": Pair[string, int]{Key: "x"}}
	ptrs := []*Pair[string, int]{&Pair[string, int]{"p", 5}}
	fmt.Println(list, byKey, ptrs[0].Key, *ptrs[0])

	timed := Pair[time.Duration, []string]{time.Second, []string{"t"}}
	fmt.Printf("%v %T\n", timed, timed)
	fmt.Println(p == Pair[string, int]{"a", 1}, e.P == Pair[string, int]{"b", 2})
}
