//go:build ignore

// Passing a pointer lets a function change the caller's variable.
package main

import "fmt"

func incValue(n int)    { n++ }
func incPointer(n *int) { *n++ }

func swap(a, b *string) { *a, *b = *b, *a }

func main() {
	n := 1
	incValue(n)
	fmt.Println(n)
	incPointer(&n)
	incPointer(&n)
	fmt.Println(n)
	x, y := "first", "second"
	swap(&x, &y)
	fmt.Println(x, y)
}
