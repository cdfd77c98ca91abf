//go:build ignore

// A package main file runs as Go would run it: imports, declarations,
// then main, with the script's arguments in os.Args.
package main

import (
	"fmt"
	"os"
	"strings"
)

var greeting = "hello"

func main() {
	fmt.Println(greeting, strings.Join(os.Args[1:], "+"))
}

// Args: a b c
// Output:
// hello a+b+c
