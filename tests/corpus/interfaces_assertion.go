//go:build ignore

// Type assertions, with and without the ok result.
package main

import "fmt"

func main() {
	var i interface{} = "hello"
	s := i.(string)
	fmt.Println(s)
	s, ok := i.(string)
	fmt.Println(s, ok)
	f, ok := i.(float64)
	fmt.Println(f, ok)
	mustFloat(i)
}

func mustFloat(i any) {
	defer func() { fmt.Println("recovered:", recover()) }()
	f := i.(float64)
	fmt.Println(f)
}
