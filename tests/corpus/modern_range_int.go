//go:build ignore

// range over an integer counts from zero.
package main

import "fmt"

func main() {
	for i := range 4 {
		fmt.Print(i, " ")
	}
	fmt.Println()
	n := 3
	total := 0
	for range n {
		total += 10
	}
	fmt.Println(total)
	type count uint8
	var c count = 3
	for i := range c {
		fmt.Printf("%T:%v ", i, i)
	}
	fmt.Println()
	for i := range 0 {
		fmt.Println("never", i)
	}
}
