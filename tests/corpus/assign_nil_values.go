//go:build ignore

// nil among the values of an assignment of several variables: each nil
// takes its variable's type.
package main

import (
	"errors"
	"fmt"
)

type node struct {
	val        int
	prev, next *node
}

func main() {
	cur := []string{"a"}
	n := 1
	cur, n = nil, 0
	fmt.Println(cur == nil, len(cur), n)

	var m map[string]int = map[string]int{"k": 1}
	var p *int = new(int)
	var err error = errors.New("x")
	var fn func() int = func() int { return 1 }
	var ch chan int = make(chan int)
	var box any = 3
	x := 5
	m, x = nil, 1
	p, x = nil, 2
	err, x = nil, 3
	fn, ch, box = nil, nil, nil
	fmt.Println(m == nil, p == nil, err == nil, fn == nil, ch == nil, box == nil, x)

	a := &node{val: 1}
	b := &node{val: 2, prev: a}
	a.next = b
	a.next, b.prev = nil, nil
	fmt.Println(a.next == nil, b.prev == nil, a.val+b.val)

	lists := map[string][]int{"a": {1}}
	lists["a"], x = nil, 4
	fmt.Println(lists["a"] == nil, len(lists), x)

	var s, t []int = nil, []int{1}
	s, t = t, nil
	fmt.Println(s, t == nil)
}
