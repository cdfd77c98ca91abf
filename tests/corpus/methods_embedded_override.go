//go:build ignore

// An outer type's method hides the promoted one; the inner one is still reachable.
package main

import "fmt"

type Base struct{ ID int }

func (b Base) Describe() string { return fmt.Sprintf("base %d", b.ID) }
func (b Base) Kind() string     { return "base" }

type Derived struct {
	Base
	Name string
}

func (d Derived) Describe() string { return "derived " + d.Name + " / " + d.Base.Describe() }

func main() {
	d := Derived{Base{7}, "x"}
	fmt.Println(d.Describe())
	fmt.Println(d.Kind(), d.ID)
}
