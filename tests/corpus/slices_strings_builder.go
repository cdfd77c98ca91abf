//go:build ignore

// Building strings with strings.Builder and byte slices.
package main

import (
	"fmt"
	"strings"
)

func main() {
	var b strings.Builder
	for i := 3; i > 0; i-- {
		fmt.Fprintf(&b, "%d...", i)
	}
	b.WriteString("liftoff")
	b.WriteByte('!')
	fmt.Println(b.String(), b.Len())
	buf := make([]byte, 0, 16)
	for c := byte('a'); c <= 'e'; c++ {
		buf = append(buf, c, '-')
	}
	fmt.Println(string(buf[:len(buf)-1]))
}
