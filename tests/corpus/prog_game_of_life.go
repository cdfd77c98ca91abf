//go:build ignore

// Conway's game of life on a small torus.
package main

import (
	"fmt"
	"strings"
)

type Field [][]bool

func NewField(w, h int) Field {
	f := make(Field, h)
	for i := range f {
		f[i] = make([]bool, w)
	}
	return f
}

func (f Field) Alive(x, y int) bool {
	h, w := len(f), len(f[0])
	return f[(y+h)%h][(x+w)%w]
}

func (f Field) Step() Field {
	n := NewField(len(f[0]), len(f))
	for y := range f {
		for x := range f[y] {
			count := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if (dx != 0 || dy != 0) && f.Alive(x+dx, y+dy) {
						count++
					}
				}
			}
			n[y][x] = count == 3 || count == 2 && f[y][x]
		}
	}
	return n
}

func (f Field) String() string {
	var b strings.Builder
	for _, row := range f {
		for _, c := range row {
			if c {
				b.WriteByte('#')
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func main() {
	f := NewField(6, 6)
	f[0][1], f[1][2], f[2][0], f[2][1], f[2][2] = true, true, true, true, true
	for i := 0; i < 4; i++ {
		f = f.Step()
	}
	fmt.Print(f)
}
