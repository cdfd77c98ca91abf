//go:build ignore

// Methods on a named slice type, with a pointer receiver to grow it.
package main

import (
	"fmt"
	"sort"
)

type IntList []int

func (l *IntList) Add(v ...int) { *l = append(*l, v...) }
func (l IntList) Sum() (s int) {
	for _, v := range l {
		s += v
	}
	return
}
func (l IntList) Sorted() IntList {
	c := append(IntList(nil), l...)
	sort.Ints(c)
	return c
}

func main() {
	var l IntList
	l.Add(5, 2, 8)
	l.Add(1)
	fmt.Println(l, l.Sum(), l.Sorted(), l)
}
