//go:build ignore

// Range clauses that assign to variables declared before the loop (=
// instead of :=): the variables keep the last index and value after it.
package main

import "fmt"

type pt struct{ x, y int }

func main() {
	var i, v int
	for i, v = range []int{4, 5} {
	}
	fmt.Println(i, v)

	var k string
	for k = range map[string]int{"a": 1} {
	}
	fmt.Println(k)

	var p pt
	for p.x, p.y = range []int{7, 8, 9} {
		if p.y == 8 {
			break
		}
	}
	fmt.Println(p)

	ch := make(chan int, 2)
	ch <- 1
	ch <- 2
	close(ch)
	var c int
	for c = range ch {
	}
	fmt.Println(c)

	var idx int
	var r rune
outer:
	for idx, r = range "héllo" {
		for j := range 2 {
			if j == 1 && r == 'l' {
				break outer
			}
		}
	}
	fmt.Println(idx, string(r))
}
