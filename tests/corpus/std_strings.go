//go:build ignore

// Common functions of the strings package.
package main

import (
	"fmt"
	"strings"
)

func main() {
	s := "  Go is expressive, concise, clean, and efficient  "
	t := strings.TrimSpace(s)
	fmt.Println(strings.HasPrefix(t, "Go"), strings.HasSuffix(t, "efficient"))
	fmt.Println(strings.Index(t, "concise"), strings.LastIndex(t, ","), strings.Count(t, "c"))
	fmt.Printf("%q\n", strings.Split("a,b,c", ","))
	fmt.Printf("%q\n", strings.Fields(" x  y\tz "))
	fmt.Println(strings.Replace("oink oink oink", "k", "ky", 2), strings.ReplaceAll("oink oink", "oink", "moo"))
	fmt.Println(strings.ToTitle("x"), strings.ToLower("MiXeD"), strings.TrimLeft("xxhixx", "x"), strings.TrimSuffix("file.go", ".go"))
	before, after, found := strings.Cut("key=value", "=")
	fmt.Println(before, after, found)
	fmt.Println(strings.EqualFold("Go", "GO"), strings.Map(func(r rune) rune {
		if r == 'a' {
			return 'A'
		}
		return r
	}, "banana"))
}
