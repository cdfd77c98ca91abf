//go:build ignore

// The empty interface holds values of any type.
package main

import "fmt"

func describe(i any) { fmt.Printf("(%v, %T)\n", i, i) }

func main() {
	var i interface{}
	describe(i)
	i = 42
	describe(i)
	i = "hello"
	describe(i)
	values := []any{1, "two", 3.0, []int{4}, map[string]int{"five": 5}, nil, struct{}{}}
	for _, v := range values {
		describe(v)
	}
}
