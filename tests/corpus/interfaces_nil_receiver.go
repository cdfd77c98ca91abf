//go:build ignore

// A nil pointer inside an interface: the interface is not nil and its methods still run.
package main

import "fmt"

type I interface{ M() string }

type T struct{ S string }

func (t *T) M() string {
	if t == nil {
		return "<nil T>"
	}
	return t.S
}

func main() {
	var i I
	fmt.Println(i == nil)
	var t *T
	i = t
	fmt.Println(i == nil, i.M())
	i = &T{"hello"}
	fmt.Println(i.M())
}
