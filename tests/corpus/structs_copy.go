//go:build ignore

// Assigning a struct copies it; a slice field still shares its array.
package main

import "fmt"

type bag struct {
	count int
	items []string
	arr   [2]int
}

func main() {
	a := bag{1, []string{"x"}, [2]int{1, 2}}
	b := a
	b.count = 9
	b.items[0] = "changed"
	b.arr[0] = 100
	fmt.Println(a.count, a.items[0], a.arr[0])
	fmt.Println(b.count, b.items[0], b.arr[0])
	p := &a
	p.count = 5
	fmt.Println(a.count)
}
