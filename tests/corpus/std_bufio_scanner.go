//go:build ignore

// bufio.Scanner splits input into lines or words.
package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	input := "alpha beta\ngamma\n\ndelta epsilon zeta\n"
	sc := bufio.NewScanner(strings.NewReader(input))
	lines := 0
	for sc.Scan() {
		lines++
		fmt.Printf("%d: %q\n", lines, sc.Text())
	}
	words := bufio.NewScanner(strings.NewReader(input))
	words.Split(bufio.ScanWords)
	n := 0
	for words.Scan() {
		n++
	}
	fmt.Println("words:", n)
}
