//go:build ignore

// Values of a struct type with methods held by empty interfaces compare
// as the structs do, however they became interface values: as arguments,
// elements, fields, appended or sent values, or from another interface;
// and they find themselves again as keys of a map[any].
package main

import (
	"fmt"
	"reflect"
	"slices"
)

type Point struct{ X, Y int }

func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type Stringer interface{ String() string }

type Box struct{ V any }

func same(a, b any) bool { return a == b }

func asAny() any { return Point{1, 2} }

func main() {
	p := Point{1, 2}
	want := any(Point{1, 2})
	var s Stringer = p
	var fromIface any = s
	l := []any{p}
	l = append(l, p)
	ch := make(chan any, 1)
	ch <- p
	var b Box
	b.V = p
	fmt.Println(same(p, want), asAny() == want, l[0] == want, l[1] == want, <-ch == want)
	fmt.Println(b.V == want, Box{p}.V == want, fromIface == want, any(s) == want, fromIface != any(Point{2, 1}))
	fmt.Println(slices.Contains(l, want), slices.Index(l, any(Point{9, 9})), reflect.DeepEqual(l, []any{Point{1, 2}, Point{1, 2}}))

	switch fromIface {
	case Point{2, 1}:
		fmt.Println("reversed")
	case Point{1, 2}:
		fmt.Println("found", fromIface)
	}

	seen := map[any]int{Point{1, 2}: 1, "one": 1}
	seen[s]++
	seen[fromIface]++
	seen[Point{3, 4}] = 7
	delete(seen, any(Point{3, 4}))
	fmt.Println(len(seen), seen[Point{1, 2}], seen[want], seen["one"])
	fmt.Println(seen)
}
