//go:build ignore

// os.Exit ends the program at once with a status; deferred calls do not run.
package main

import (
	"fmt"
	"os"
)

func finish(code int) {
	defer fmt.Println("not printed")
	fmt.Println("exiting with", code)
	os.Exit(code)
}

func main() {
	fmt.Println("start")
	finish(3)
	fmt.Println("not reached")
}
