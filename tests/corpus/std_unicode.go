//go:build ignore

// Classifying and converting runes with unicode and unicode/utf8.
package main

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

func main() {
	s := "Hé, 世界 42!"
	var letters, digits, spaces, punct, upper int
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		case unicode.IsDigit(r):
			digits++
		case unicode.IsSpace(r):
			spaces++
		case unicode.IsPunct(r):
			punct++
		}
	}
	fmt.Println(letters, digits, spaces, punct, upper)
	fmt.Println(string(unicode.ToUpper('é')), unicode.Is(unicode.Han, '世'))
	r, size := utf8.DecodeRuneInString("世界")
	fmt.Println(string(r), size, utf8.ValidString("ok"), utf8.ValidString("\xff"))
	buf := utf8.AppendRune(nil, '界')
	fmt.Println(buf, len(buf))
}
