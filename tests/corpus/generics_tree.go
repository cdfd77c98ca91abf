//go:build ignore

// A generic binary search tree ordered by a comparison function.
package main

import (
	"cmp"
	"fmt"
)

type Tree[T any] struct {
	root *node[T]
	cmp  func(a, b T) int
}

type node[T any] struct {
	val         T
	left, right *node[T]
}

func (t *Tree[T]) Insert(v T) {
	p := &t.root
	for *p != nil {
		if t.cmp(v, (*p).val) < 0 {
			p = &(*p).left
		} else {
			p = &(*p).right
		}
	}
	*p = &node[T]{val: v}
}

func (t *Tree[T]) InOrder(visit func(T)) { walk(t.root, visit) }

func walk[T any](n *node[T], visit func(T)) {
	if n == nil {
		return
	}
	walk(n.left, visit)
	visit(n.val)
	walk(n.right, visit)
}

func main() {
	t := &Tree[int]{cmp: cmp.Compare[int]}
	for _, v := range []int{5, 2, 8, 1, 9, 3} {
		t.Insert(v)
	}
	t.InOrder(func(v int) { fmt.Print(v, " ") })
	fmt.Println()
	byLen := &Tree[string]{cmp: func(a, b string) int { return cmp.Compare(len(a), len(b)) }}
	for _, s := range []string{"ccc", "a", "bb"} {
		byLen.Insert(s)
	}
	byLen.InOrder(func(s string) { fmt.Print(s, " ") })
	fmt.Println()
}
