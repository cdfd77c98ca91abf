//go:build ignore

// Named function types, and methods on them.
package main

import (
	"fmt"
	"strings"
)

type Transform func(string) string

func (t Transform) Then(next Transform) Transform {
	return func(s string) string { return next(t(s)) }
}

type Predicate func(int) bool

func (p Predicate) Not() Predicate { return func(n int) bool { return !p(n) } }

func main() {
	shout := Transform(strings.ToUpper).Then(func(s string) string { return s + "!" })
	fmt.Println(shout("hey"))
	even := Predicate(func(n int) bool { return n%2 == 0 })
	odd := even.Not()
	fmt.Println(even(4), odd(4), odd(5))
}
