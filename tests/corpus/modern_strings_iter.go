//go:build ignore

// Iterator helpers of strings and bytes (Go 1.24): Lines, SplitSeq and FieldsSeq.
package main

import (
	"fmt"
	"strings"
)

func main() {
	text := "first line\nsecond line\nthird"
	n := 0
	for line := range strings.Lines(text) {
		n++
		fmt.Printf("%d %q\n", n, line)
	}
	for part := range strings.SplitSeq("a,b,,c", ",") {
		fmt.Printf("[%s]", part)
	}
	fmt.Println()
	for f := range strings.FieldsSeq("  x  y z ") {
		fmt.Print(f, ".")
	}
	fmt.Println()
}
