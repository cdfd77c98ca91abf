//go:build ignore

// cmp.Ordered constrains to types with < ; a generic Max and Clamp.
package main

import (
	"cmp"
	"fmt"
)

func Max[T cmp.Ordered](a T, rest ...T) T {
	m := a
	for _, v := range rest {
		if v > m {
			m = v
		}
	}
	return m
}

func Clamp[T cmp.Ordered](v, lo, hi T) T {
	return min(max(v, lo), hi)
}

func main() {
	fmt.Println(Max(3, 9, 4), Max("pear", "apple", "zoo"), Max(2.5))
	fmt.Println(Clamp(15, 0, 10), Clamp(-3, 0, 10), Clamp("m", "a", "k"))
	fmt.Println(cmp.Compare(1, 2), cmp.Compare("b", "a"), cmp.Less(1.0, 2.0))
}
