//go:build ignore

// Strings are bytes: indexing, slicing, len and runes.
package main

import (
	"fmt"
	"unicode/utf8"
)

func main() {
	s := "naïve café"
	fmt.Println(len(s), utf8.RuneCountInString(s))
	fmt.Println(s[0], s[:3], string(s[2]))
	for i, r := range "aé€" {
		fmt.Println(i, r, string(r), utf8.RuneLen(r))
	}
	b := []byte(s)
	b[0] = 'N'
	fmt.Println(string(b), s)
	raw := `a\nb`
	fmt.Println(raw, len(raw))
	fmt.Println("con" + "cat" + "enate")
}
