//go:build ignore

// A singly linked list built from pointers.
package main

import (
	"fmt"
	"strings"
)

type node struct {
	val  int
	next *node
}

type list struct {
	head *node
	size int
}

func (l *list) push(v int) {
	l.head = &node{v, l.head}
	l.size++
}

func (l *list) reverse() {
	var prev *node
	for cur := l.head; cur != nil; {
		next := cur.next
		cur.next = prev
		prev, cur = cur, next
	}
	l.head = prev
}

func (l *list) String() string {
	var parts []string
	for n := l.head; n != nil; n = n.next {
		parts = append(parts, fmt.Sprint(n.val))
	}
	return "[" + strings.Join(parts, " -> ") + "]"
}

func main() {
	var l list
	for i := 1; i <= 4; i++ {
		l.push(i * i)
	}
	fmt.Println(l.String(), l.size)
	l.reverse()
	fmt.Println(l.String())
}
