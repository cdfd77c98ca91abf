//go:build ignore

// Methods may be declared on any named type of the package.
package main

import (
	"fmt"
	"strings"
)

type MyFloat float64

func (f MyFloat) Abs() float64 {
	if f < 0 {
		return float64(-f)
	}
	return float64(f)
}

type Words []string

func (w Words) Longest() string {
	best := ""
	for _, s := range w {
		if len(s) > len(best) {
			best = s
		}
	}
	return best
}

type Upper string

func (u Upper) Shout() string { return strings.ToUpper(string(u)) + "!" }

func main() {
	fmt.Println(MyFloat(-2.5).Abs())
	fmt.Println(Words{"a", "abcd", "ab"}.Longest())
	fmt.Println(Upper("hey").Shout())
}
