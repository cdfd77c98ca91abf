//go:build ignore

// & takes an address, * follows it.
package main

import "fmt"

func main() {
	i, j := 42, 2701
	p := &i
	fmt.Println(*p)
	*p = 21
	fmt.Println(i)
	p = &j
	*p = *p / 37
	fmt.Println(j)
	var q *int
	fmt.Println(q == nil, p != nil)
	pp := &p
	**pp = 7
	fmt.Println(j)
}
