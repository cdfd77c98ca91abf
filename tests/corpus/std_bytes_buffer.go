//go:build ignore

// bytes.Buffer as a reader and writer, and the bytes functions.
package main

import (
	"bytes"
	"fmt"
)

func main() {
	var buf bytes.Buffer
	buf.WriteString("hello ")
	buf.Write([]byte("world"))
	fmt.Fprintf(&buf, " %d", 42)
	fmt.Println(buf.String(), buf.Len())
	word, _ := buf.ReadString(' ')
	fmt.Printf("%q %q\n", word, buf.String())
	fmt.Println(bytes.Equal([]byte("a"), []byte("a")), bytes.ToUpper([]byte("abc")))
	fmt.Println(bytes.Contains([]byte("seafood"), []byte("foo")), string(bytes.TrimSpace([]byte("  x "))))
}
