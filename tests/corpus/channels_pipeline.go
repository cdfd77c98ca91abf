//go:build ignore

// A pipeline of stages, each a goroutine between two channels.
package main

import (
	"fmt"
	"strings"
)

func gen(words ...string) <-chan string {
	out := make(chan string)
	go func() {
		for _, w := range words {
			out <- w
		}
		close(out)
	}()
	return out
}

func stage(in <-chan string, f func(string) string) <-chan string {
	out := make(chan string)
	go func() {
		for w := range in {
			out <- f(w)
		}
		close(out)
	}()
	return out
}

func main() {
	up := stage(gen("go", "is", "fun"), strings.ToUpper)
	ex := stage(up, func(s string) string { return s + "!" })
	for w := range ex {
		fmt.Print(w, " ")
	}
	fmt.Println()
}
