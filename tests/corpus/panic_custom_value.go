//go:build ignore

// panic takes any value; recover returns it unchanged.
package main

import "fmt"

type problem struct {
	code int
	msg  string
}

func fail(v any) (got any) {
	defer func() { got = recover() }()
	panic(v)
}

func main() {
	fmt.Printf("%v\n", fail(42))
	fmt.Printf("%+v\n", fail(problem{7, "broken"}))
	fmt.Printf("%v\n", fail(fmt.Errorf("wrapped %d", 3)))
	p := fail([]string{"a", "b"}).([]string)
	fmt.Println(len(p))
}
