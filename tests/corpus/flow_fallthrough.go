//go:build ignore

// fallthrough continues into the next case; break leaves a switch early.
package main

import "fmt"

func describe(n int) {
	switch n {
	case 0:
		fmt.Print("zero ")
		fallthrough
	case 1:
		fmt.Print("small ")
		fallthrough
	case 2:
		fmt.Print("tiny ")
	case 3:
		if n == 3 {
			fmt.Print("three ")
			break
		}
		fmt.Print("unreached ")
	default:
		fmt.Print("big ")
	}
	fmt.Println()
}

func main() {
	for i := 0; i < 5; i++ {
		describe(i)
	}
}
