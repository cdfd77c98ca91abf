//go:build ignore

// Ranging over a string that is not all UTF-8: each bad byte is one
// utf8.RuneError at its own index, and the next rune's index follows it.
package main

import (
	"fmt"
	"unicode/utf8"
)

func main() {
	s := "a\xffb\xe2\x82é!"
	for i, r := range s {
		fmt.Printf("%d:%q ", i, r)
	}
	fmt.Println()
	var i int
	var r rune
	bad := 0
next:
	for i, r = range s {
		if r != utf8.RuneError {
			continue next
		}
		bad++
	}
	fmt.Println(bad, i, r)
	for i := range "\xff\xffx" {
		fmt.Print(i, " ")
	}
	for _, r := range "\xffx" {
		fmt.Print(r, " ")
	}
	fmt.Println(len(s), utf8.RuneCountInString(s))
}
