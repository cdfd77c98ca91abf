//go:build ignore

// Implementing io.Writer; fmt.Fprintf writes to any writer.
package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

type countingWriter struct {
	w     io.Writer
	bytes int
	lines int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.bytes += len(p)
	c.lines += bytes.Count(p, []byte("\n"))
	return c.w.Write(p)
}

func main() {
	var sb strings.Builder
	cw := &countingWriter{w: &sb}
	fmt.Fprintf(cw, "line %d\n", 1)
	fmt.Fprintln(cw, "line two")
	io.WriteString(cw, "no newline")
	fmt.Println(cw.bytes, cw.lines)
	fmt.Println(sb.String())
}
