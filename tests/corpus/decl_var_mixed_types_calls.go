//go:build ignore

// Package-level variables of several types in one declaration, beside a
// table built by a function literal called on the spot, and variables that
// one call initializes, declared before the function.
package main

import (
	"fmt"
	"strings"
)

var x, y = 5, "five"

var squares = func() map[int]int {
	m := map[int]int{}
	for i := 1; i <= 4; i++ {
		m[i] = i * i
	}
	return m
}()

var name, size = split("alpha:12")

var (
	total, label = sum(squares), strings.ToUpper(y)
	ratio        = float64(total) / float64(size)
)

func split(s string) (string, int) {
	k, v, _ := strings.Cut(s, ":")
	n := 0
	fmt.Sscan(v, &n)
	return k, n
}

func sum(m map[int]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

func main() {
	fmt.Println(x, y, len(squares), squares[3])
	fmt.Println(name, size, total, label)
	fmt.Printf("%.3f %T %T\n", ratio, name, size)
}
