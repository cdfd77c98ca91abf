//go:build ignore

// A constraint with a method: any type with String() string.
package main

import (
	"fmt"
	"strings"
)

type Stringer interface{ String() string }

func JoinAll[T Stringer](xs []T, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, sep)
}

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Tag string

func (t Tag) String() string { return "#" + string(t) }

func main() {
	fmt.Println(JoinAll([]Celsius{20, 22.5}, ", "))
	fmt.Println(JoinAll([]Tag{"go", "repl"}, " "))
}
