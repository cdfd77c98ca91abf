//go:build ignore

// Implementing io.Reader and using it with the standard library.
package main

import (
	"fmt"
	"io"
	"strings"
)

type rot13Reader struct{ r io.Reader }

func (rr rot13Reader) Read(b []byte) (int, error) {
	n, err := rr.r.Read(b)
	for i := 0; i < n; i++ {
		c := b[i]
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return n, err
}

type repeat byte

func (r repeat) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(r)
	}
	return len(b), nil
}

func main() {
	s := strings.NewReader("Lbh penpxrq gur pbqr!")
	out, err := io.ReadAll(rot13Reader{s})
	fmt.Println(string(out), err)
	buf := make([]byte, 5)
	n, _ := io.ReadFull(repeat('A'), buf)
	fmt.Println(n, string(buf))
}
