//go:build ignore

// A range over a string that takes the byte offsets alone moves on by
// each rune's length, as the range over offsets and runes does.
package main

import (
	"fmt"
	"strings"
)

type Name string

// truncate keeps the first n runes of s, with an ellipsis if it cut.
func truncate(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

func main() {
	for i := range "héllo" {
		fmt.Print(i, " ")
	}
	fmt.Println()
	var last int
	for last = range "ñ" + "x" {
	}
	fmt.Println(last)
	for i := range Name("日本") {
		fmt.Print(i, " ")
	}
	fmt.Println()
	fmt.Println(truncate("日本語のテキスト", 3), truncate("abc", 5))
	words := strings.Fields("naïve café über")
	for _, w := range words {
		offsets := []int{}
		for i := range w {
			offsets = append(offsets, i)
		}
		fmt.Println(w, len(w), offsets)
	}
	bad := "a\xffb"
	for i := range bad {
		fmt.Print(i, " ")
	}
	fmt.Println()
}
