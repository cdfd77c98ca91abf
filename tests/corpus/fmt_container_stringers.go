//go:build ignore

// Slice, map and array types with a String method of their own, whose
// elements have one too: fmt calls the container's, at the top and
// inside other values.
package main

import (
	"fmt"
	"strings"
)

type Pt struct{ X, Y int }

func (p Pt) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type Path []Pt

func (p Path) String() string {
	parts := make([]string, len(p))
	for i, pt := range p {
		parts[i] = pt.String()
	}
	return strings.Join(parts, "->")
}

type Ledger map[string]int

func (l Ledger) String() string { return fmt.Sprintf("ledger of %d", len(l)) }

type Grid [2]Pt

func (g Grid) String() string { return "grid " + g[0].String() }

type Route struct {
	Name  string
	Steps Path
	Books Ledger
}

func main() {
	p := Path{{0, 0}, {1, 2}}
	fmt.Println(p, Ledger{"a": 1}, Grid{{3, 4}})
	fmt.Printf("%v|%s|%+v\n", p, p, Grid{})
	r := Route{"home", p, Ledger{"x": 1, "y": 2}}
	fmt.Println(r)
	fmt.Printf("%+v\n", r)
	fmt.Println([]Path{p, {{9, 9}}}, map[string]Path{"k": p})
	fmt.Println([]Pt(p))
}
