//go:build ignore

// A Caesar cipher over letters, with strings.Map.
package main

import (
	"fmt"
	"strings"
)

func shift(k int) func(rune) rune {
	return func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+rune(k)+26)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+rune(k)+26)%26
		}
		return r
	}
}

func main() {
	msg := "Attack at Dawn, 5 AM!"
	enc := strings.Map(shift(3), msg)
	dec := strings.Map(shift(-3), enc)
	fmt.Println(enc)
	fmt.Println(dec, dec == msg)
}
