//go:build ignore

// Converting between strings and numbers with strconv.
package main

import (
	"fmt"
	"strconv"
)

func main() {
	f, _ := strconv.ParseFloat("1.25", 64)
	i, _ := strconv.ParseInt("-42", 10, 64)
	h, _ := strconv.ParseInt("ff", 16, 64)
	u, err := strconv.ParseUint("300", 10, 8)
	b, _ := strconv.ParseBool("true")
	fmt.Println(f, i, h, u, err)
	fmt.Println(b, strconv.FormatInt(255, 2), strconv.FormatInt(-255, 16))
	fmt.Println(strconv.Quote("héllo\n"), strconv.QuoteToASCII("héllo"))
	s, err := strconv.Unquote(`"a\tb"`)
	fmt.Printf("%q %v\n", s, err)
	fmt.Println(strconv.AppendInt([]byte("n="), 7, 10))
}
