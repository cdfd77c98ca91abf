//go:build ignore

// slices.Insert as Go's: into the slice's array where its capacity holds
// the result, grown as append grows it otherwise.
package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []int{1, 2, 3, 4, 5, 6}
	t := slices.Insert(s, 2, 100, 200)
	fmt.Println(t, len(t), cap(t), s)

	room := make([]int, 3, 10)
	copy(room, []int{7, 8, 9})
	u := slices.Insert(room, 1, 0)
	fmt.Println(u, len(u), cap(u), room[:4])
	u[0] = -1
	fmt.Println(room[0])

	v := slices.Insert(room, 3, 5, 6)
	fmt.Println(v, cap(v))
	w := slices.Insert(room, 0)
	fmt.Println(w, len(w) == len(room))

	own := make([]string, 4, 8)
	copy(own, []string{"a", "b", "c", "d"})
	own = slices.Insert(own, 1, own[2:]...)
	fmt.Println(own, len(own), cap(own))

	var empty []int
	empty = slices.Insert(empty, 0, 1, 2, 3)
	fmt.Println(empty, len(empty), cap(empty))

	func() {
		defer func() { fmt.Println("recovered:", recover() != nil) }()
		slices.Insert([]int{1}, 5, 2)
	}()
}
