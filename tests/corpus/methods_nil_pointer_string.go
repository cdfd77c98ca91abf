//go:build ignore

// A method with a pointer receiver runs on a nil pointer: fmt calls the
// String method of a nil *Tree, which prints an empty tree, and prints
// <nil> where the method dereferences the nil receiver.
package main

import "fmt"

type Tree struct {
	L, R *Tree
	V    int
}

func (t *Tree) String() string {
	if t == nil {
		return "()"
	}
	return fmt.Sprintf("(%v %d %v)", t.L, t.V, t.R)
}

type List struct {
	Next *List
	V    int
}

func (l *List) String() string { return fmt.Sprint(l.V) }

func main() {
	var t *Tree
	fmt.Println(t)
	t = &Tree{V: 1, R: &Tree{V: 2}}
	fmt.Println(t)
	fmt.Printf("%v|%s\n", t.L, t.L)
	var l *List
	fmt.Println(l)
}
