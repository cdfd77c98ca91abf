//go:build ignore

// Select cases that send computed values: a struct literal holding a
// call's result, a call with an expression argument, a comparison sent on
// a channel of a named boolean type.
package main

import (
	"fmt"
	"strings"
)

type pair struct {
	n    int
	name string
}

type flag bool

func label(i int) string { return strings.Repeat("x", i) }

func main() {
	pairs := make(chan pair, 3)
	for i := range 3 {
		select {
		case pairs <- pair{i, label(i + 1)}:
		}
	}
	close(pairs)
	for p := range pairs {
		fmt.Print(p, " ")
	}
	fmt.Println()

	words := make(chan string, 1)
	full := make(chan flag, 1)
	x := 4
	select {
	case words <- fmt.Sprint("w", x*10+1):
	default:
	}
	select {
	case full <- x > 3:
	default:
	}
	fmt.Println(<-words, <-full)

	order := []string{}
	note := func(s string) string { order = append(order, s); return s }
	chans := map[string]chan string{"a": make(chan string, 1), "b": make(chan string, 1)}
	select {
	case chans[note("a")] <- note("va"):
	case chans[note("b")] <- note("vb"):
	}
	fmt.Println(order, len(chans["a"])+len(chans["b"]))
}
