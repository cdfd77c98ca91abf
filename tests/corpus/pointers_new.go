//go:build ignore

// new allocates a zero value and returns its address; a local's address may escape.
package main

import "fmt"

type counter struct{ hits int }

func newCounter() *counter {
	c := counter{}
	return &c
}

func main() {
	p := new(int)
	fmt.Println(*p)
	*p = 5
	c := newCounter()
	c.hits += *p
	d := newCounter()
	fmt.Println(c.hits, d.hits, c != d)
	s := new([]string)
	*s = append(*s, "a")
	fmt.Println(len(*s))
}
