//go:build ignore

// Wrapping text to a width.
package main

import (
	"fmt"
	"strings"
)

func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func main() {
	text := "Go is an open source programming language that makes it simple to build secure, scalable systems."
	for _, l := range wrap(text, 24) {
		fmt.Printf("|%-24s|\n", l)
	}
}
